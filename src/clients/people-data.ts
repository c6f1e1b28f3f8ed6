import type { CallOptions } from './provider-http.ts';

/** What a company or person search asks: a free-text query, a domain, or a name (with a company). */
export interface CompanyQuery {
  query?: string;
  domain?: string;
  name?: string;
  limit: number;
}

export interface PersonQuery {
  query?: string;
  domain?: string;
  name?: string;
  company?: string;
  linkedinUrl?: string;
  limit: number;
}

export interface Company {
  name: string;
  domain: string | null;
  linkedinUrl: string | null;
  industry: string | null;
  size: string | null;
  employeeCount: number | null;
  founded: number | null;
  location: string | null;
  description: string | null;
}

export interface Person {
  fullName: string;
  jobTitle: string | null;
  companyName: string | null;
  companyDomain: string | null;
  linkedinUrl: string | null;
  location: string | null;
  /** The work address when the provider's plan gives it. */
  workEmail: string | null;
}

/**
 * A people-data provider as this service needs it: companies and people by query, domain or name.
 * One implementation: People Data Labs (./people-data-labs.ts); another provider is another file
 * answering this.
 */
export interface PeopleDataProvider {
  readonly name: string;
  companies(query: CompanyQuery, options?: CallOptions): Promise<Company[]>;
  people(query: PersonQuery, options?: CallOptions): Promise<Person[]>;
}
