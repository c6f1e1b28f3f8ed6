import type { Command } from 'commander';
import { clientFor } from '../http.ts';
import { emit, formatRecord, formatTable } from '../output.ts';
import { fetchPages, type PageOptions, pageOptions, withMore } from '../pages.ts';

interface Lead {
  id: string;
  fullName: string | null;
  title: string | null;
  companyName: string | null;
  companyDomain: string | null;
  linkedinUrl: string | null;
  emailAddresses: { address: string; source: string }[];
  phoneNumbers: { number: string; source: string }[];
  sources: { tableId: string; rowId: string; columnId: string }[];
  createdAt: string;
  updatedAt: string;
}

const showLead = (l: Lead) =>
  formatRecord([
    ['ID', l.id],
    ['Name', l.fullName],
    ['Title', l.title],
    ['Company', [l.companyName, l.companyDomain && `(${l.companyDomain})`].filter(Boolean).join(' ')],
    ['LinkedIn', l.linkedinUrl],
    ['Emails', l.emailAddresses.map((e) => `${e.address} [${e.source}]`).join(', ')],
    ['Phones', l.phoneNumbers.map((p) => `${p.number} [${p.source}]`).join(', ')],
    ['Sources', l.sources.map((s) => `${s.tableId}/${s.rowId}/${s.columnId}`).join(', ')],
    ['Created', l.createdAt],
    ['Updated', l.updatedAt],
  ]);

/** `stk leads list | get`. */
export function registerLeadCommands(program: Command): void {
  const leads = program.command('leads').description("the organization's leads");

  pageOptions(
    leads
      .command('list')
      .description('list leads, oldest first')
      .option('--q <text>', 'search name, email or company domain'),
    'leads',
  ).action(async (options: PageOptions & { q?: string }, command: Command) => {
    const page = await fetchPages<Lead>(await clientFor(command), '/api/leads', options, { q: options.q });
    emit(command, page, () =>
      withMore(
        formatTable(page.data, [
          { header: 'ID', value: (l) => l.id },
          { header: 'NAME', value: (l) => l.fullName ?? '' },
          { header: 'DOMAIN', value: (l) => l.companyDomain ?? '' },
          { header: 'EMAIL', value: (l) => l.emailAddresses[0]?.address ?? '' },
          { header: 'LINKEDIN', value: (l) => l.linkedinUrl ?? '' },
        ]),
        page.nextCursor,
      ),
    );
  });

  leads
    .command('get')
    .description('show a lead')
    .argument('<leadId>')
    .action(async (id: string, _options: object, command: Command) => {
      const lead = await (await clientFor(command)).get<Lead>(`/api/leads/${encodeURIComponent(id)}`);
      emit(command, lead, () => showLead(lead));
    });
}
