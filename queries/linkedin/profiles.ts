import { providerLookup } from '../../services/search/lookup.ts';
import { profileHandle } from '../../src/clients/linkedin-provider.ts';
import {
  LinkedinPostsAnswer,
  LinkedinProfileAnswer,
  PostsQuery,
  ProfileParams,
} from '../../src/domain/linkedin/schemas.ts';
import { AppError } from '../../src/errors.ts';
import type { RouteModule } from '../../src/http/routes.ts';

/** The handle of a profile parameter, or 400 naming where it was given. */
function handleOf(given: string, path: string): string {
  const handle = profileHandle(given);
  if (handle !== undefined) return handle;
  const message = 'not a LinkedIn handle nor a linkedin.com/in/ profile URL';
  throw new AppError('validation_failed', `Invalid ${path}: ${message}`, { errors: [{ path, message }] });
}

/**
 * GET /api/linkedin/profiles/{handleOrUrl}: one profile (a URL goes percent-encoded in the path), or
 * `profile: null` when the provider knows none: it was asked (and paid) like any other search that
 * found nothing, and the answer is cached like one.
 */
export const linkedinProfileRoute: RouteModule = (app, deps) => {
  app.get(
    '/api/linkedin/profiles/:handleOrUrl',
    {
      config: { access: 'linkedin:read' },
      schema: {
        operationId: 'getLinkedinProfile',
        tags: ['linkedin'],
        summary: 'Get a LinkedIn profile through the configured provider',
        params: ProfileParams,
        response: { 200: LinkedinProfileAnswer },
      },
    },
    async (request) => {
      const handle = handleOf(request.params.handleOrUrl, 'params.handleOrUrl');
      const { value, cached, provider } = await providerLookup(deps, request, 'linkedin', (linkedin) => ({
        operation: 'linkedin_profile',
        request: { handle },
        call: (options) => linkedin.profile(handle, options),
      }));
      return { profile: value, provider, cached };
    },
  );
};

/**
 * GET /api/linkedin/posts?profile=…: a profile's recent posts, newest first as the provider gives them;
 * `found: false` (and no posts) when the provider knows no such profile.
 */
export const linkedinPostsRoute: RouteModule = (app, deps) => {
  app.get(
    '/api/linkedin/posts',
    {
      config: { access: 'linkedin:read' },
      schema: {
        operationId: 'listLinkedinPosts',
        tags: ['linkedin'],
        summary: "Get a LinkedIn profile's recent posts through the configured provider",
        querystring: PostsQuery,
        response: { 200: LinkedinPostsAnswer },
      },
    },
    async (request) => {
      const handle = handleOf(request.query.profile, 'querystring.profile');
      const { limit } = request.query;
      const { value, cached, provider } = await providerLookup(deps, request, 'linkedin', (linkedin) => ({
        operation: 'linkedin_posts',
        request: { handle, limit },
        call: (options) => linkedin.posts(handle, limit, options),
      }));
      return { posts: value ?? [], found: value !== null, provider, cached };
    },
  );
};
