import { linkedinPostsRoute, linkedinProfileRoute } from './profiles.ts';
import { linkedinLimitsRoute, linkedinStatusRoute } from './status.ts';

export const linkedinQueries = [
  linkedinStatusRoute,
  linkedinLimitsRoute,
  linkedinProfileRoute,
  linkedinPostsRoute,
];
