import { z } from 'zod';
import { LINKEDIN_SEARCH_TYPES } from '../../clients/vocabulary.ts';
import { MAX_LIMIT } from '../search/schemas.ts';

const limit = (byDefault: number) =>
  z.number().int().min(1).max(MAX_LIMIT).default(byDefault).describe(`results wanted, 1-${MAX_LIMIT}`);
const handleOrUrl = z
  .string()
  .trim()
  .min(1)
  .max(300)
  .describe('a profile handle (janedoe) or URL (https://www.linkedin.com/in/janedoe)');

export const LinkedinSearchBody = z
  .strictObject({
    query: z.string().trim().min(1).max(500),
    type: z.enum(LINKEDIN_SEARCH_TYPES),
    limit: limit(10),
  })
  .meta({ id: 'LinkedinSearchRequest' });

export const ProfileParams = z.object({ handleOrUrl });

export const PostsQuery = z.object({
  profile: handleOrUrl,
  limit: z.coerce.number().int().min(1).max(MAX_LIMIT).default(10),
});

const cachedFields = {
  provider: z.string(),
  cached: z.boolean().describe('true: from the organization cache, and free'),
};

export const LinkedinSearchAnswer = z
  .object({
    results: z.array(
      z.object({
        type: z.enum(['person', 'company']),
        id: z.string(),
        name: z.string(),
        headline: z.string().nullable(),
        location: z.string().nullable(),
        url: z.string().nullable(),
        handle: z.string().nullable(),
      }),
    ),
    ...cachedFields,
  })
  .meta({ id: 'LinkedinSearchAnswer' });

export const LinkedinProfileSchema = z
  .object({
    id: z.string(),
    handle: z.string().nullable(),
    firstName: z.string().nullable(),
    lastName: z.string().nullable(),
    headline: z.string().nullable(),
    location: z.string().nullable(),
    summary: z.string().nullable(),
    url: z.string().nullable(),
    followerCount: z.number().nullable(),
    connectionsCount: z.number().nullable(),
  })
  .meta({ id: 'LinkedinProfile' });

export const LinkedinProfileAnswer = z
  .object({
    profile: LinkedinProfileSchema.nullable().describe('null: the provider knows no such profile'),
    ...cachedFields,
  })
  .meta({ id: 'LinkedinProfileAnswer' });

export const LinkedinPostsAnswer = z
  .object({
    posts: z.array(
      z.object({
        id: z.string(),
        text: z.string(),
        url: z.string().nullable(),
        publishedAt: z.string().nullable(),
        reactions: z.number(),
        comments: z.number(),
        reposts: z.number(),
      }),
    ),
    found: z.boolean().describe('false: the provider knows no such profile'),
    ...cachedFields,
  })
  .meta({ id: 'LinkedinPostsAnswer' });

const SenderAccount = z.object({
  id: z.string(),
  address: z.string(),
  userId: z.string(),
  dailyLimit: z.number().int(),
});

export const LinkedinStatusAnswer = z
  .object({
    provider: z.string().nullable().describe('the configured LinkedIn data provider, null when none is'),
    configured: z.boolean(),
    reachable: z.boolean().describe('it answered just now'),
    connectedAccounts: z.number().int().nullable().describe('LinkedIn accounts connected at the provider'),
    problem: z.object({ code: z.string(), detail: z.string() }).nullable(),
    senderAccounts: z.array(SenderAccount).describe('sender accounts of type linkedin'),
  })
  .meta({ id: 'LinkedinStatus' });

export const LinkedinLimitsAnswer = z
  .object({
    day: z.string().describe('the UTC day counted, YYYY-MM-DD'),
    accounts: z.array(
      SenderAccount.extend({
        usedToday: z.number().int(),
        remainingToday: z.number().int(),
      }),
    ),
  })
  .meta({ id: 'LinkedinLimits' });
