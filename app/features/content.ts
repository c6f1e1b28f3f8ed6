import { contentCommands } from '../../commands/content/index.ts';
import { siteContentProjection } from '../../projections/content/site-content.ts';
import { contentQueries } from '../../queries/content/index.ts';
import { articleStream } from '../../src/domain/content/article.ts';
import type { Feature } from '../../src/feature.ts';

/** Content sync and the public blog. */
export const contentFeature: Feature = {
  name: 'content',
  streams: [articleStream],
  commands: contentCommands,
  queries: contentQueries,
  projections: [siteContentProjection],
};
