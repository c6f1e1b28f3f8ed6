import { linkedinSearchRoute } from './search.ts';

export const linkedinCommands = [linkedinSearchRoute];
