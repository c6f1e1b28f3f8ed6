/**
 * Publish notifications as common CMSs send them (trimmed to what matters, with the neighbouring
 * fields that could be mistaken for a slug kept in), and the slugs each one names. Shared by the unit
 * tests of the request parser and the integration tests of the endpoint; the slugs are sample articles
 * of the fake content API.
 */
export interface CmsNotification {
  cms: string;
  body: Record<string, unknown>;
  slugs: string[];
}

export const cmsNotifications: CmsNotification[] = [
  {
    cms: 'WordPress (WP Webhooks, post object)',
    body: {
      post_id: 42,
      post: {
        ID: 42,
        post_name: 'getting-started',
        post_type: 'post',
        post_status: 'publish',
        post_title: 'Getting started',
        post_content: '<p>FROM THE WEBHOOK</p>',
      },
      post_permalink: 'https://blog.example/getting-started/',
    },
    slugs: ['getting-started'],
  },
  {
    cms: 'WordPress (REST API post)',
    body: {
      id: 42,
      slug: 'getting-started',
      type: 'post',
      status: 'publish',
      link: 'https://blog.example/getting-started/',
      content: { rendered: '<p>FROM THE WEBHOOK</p>' },
    },
    slugs: ['getting-started'],
  },
  {
    cms: 'Contentful (Entry.publish, slug per locale)',
    body: {
      metadata: { tags: [] },
      sys: {
        type: 'Entry',
        id: '5KsDBWseXY6QegucYAoacS',
        contentType: { sys: { type: 'Link', linkType: 'ContentType', id: 'blogPost' } },
        space: { sys: { type: 'Link', linkType: 'Space', id: 'yadj1kx9rmg0' } },
        version: 3,
      },
      fields: {
        title: { 'en-US': 'Getting started' },
        slug: { 'en-US': 'getting-started', 'de-DE': 'tolerant-reading' },
      },
    },
    slugs: ['getting-started', 'tolerant-reading'],
  },
  {
    cms: 'Prismic (a document)',
    body: {
      id: 'XoRhYhIAACIAqsYH',
      uid: 'getting-started',
      type: 'blog_post',
      lang: 'en-us',
      first_publication_date: '2024-03-01T09:00:00+0000',
      data: { title: [{ type: 'heading1', text: 'Getting started' }] },
    },
    slugs: ['getting-started'],
  },
  {
    cms: 'Sanity (GROQ webhook, whole document)',
    body: {
      _id: 'drafts.3f1c',
      _type: 'post',
      _rev: 'x1y2',
      title: 'Getting started',
      slug: { _type: 'slug', current: 'getting-started' },
    },
    slugs: ['getting-started'],
  },
  {
    cms: 'Strapi (entry.publish)',
    body: {
      event: 'entry.publish',
      createdAt: '2024-03-02T10:30:00.000Z',
      model: 'article',
      uid: 'api::article.article',
      entry: { id: 7, documentId: 'a1b2c3', slug: 'getting-started', title: 'Getting started' },
    },
    slugs: ['getting-started'],
  },
  {
    cms: 'Ghost (post.published)',
    body: {
      post: {
        current: { id: '65f0', slug: 'getting-started', status: 'published', html: '<p>x</p>' },
        previous: { slug: 'an-old-slug', status: 'draft' },
      },
    },
    slugs: ['getting-started'],
  },
  {
    cms: 'Storyblok (story.published)',
    body: {
      text: 'The user Ada published the Story Getting started (blog/getting-started)',
      action: 'published',
      space_id: 288868,
      story_id: 369689,
      full_slug: 'blog/getting-started',
    },
    slugs: ['getting-started'],
  },
  {
    cms: 'DatoCMS (item publish)',
    body: {
      environment: 'main',
      entity_type: 'item',
      event_type: 'publish',
      entity: {
        id: '348295724',
        type: 'item',
        attributes: { title: 'Getting started', slug: 'getting-started' },
        relationships: { item_type: { data: { id: '7690234', type: 'item_type' } } },
      },
    },
    slugs: ['getting-started'],
  },
  {
    cms: 'Webflow (collection_item_changed)',
    body: {
      triggerType: 'collection_item_changed',
      payload: {
        id: '582b900cba19143b2bb8a759',
        siteId: '1111111',
        collectionId: '1111111',
        fieldData: { name: 'Getting started', slug: 'getting-started' },
      },
    },
    slugs: ['getting-started'],
  },
  {
    cms: 'Webflow (collection_item_published)',
    body: {
      triggerType: 'collection_item_published',
      payload: {
        items: [
          { id: '699b9529a9f8b010bafa9671', fieldData: { slug: 'getting-started' } },
          { id: '699b9529a9f8b010bafa9672', fieldData: { slug: 'tolerant-reading' } },
        ],
      },
    },
    slugs: ['getting-started', 'tolerant-reading'],
  },
  {
    cms: 'ButterCMS (post.published)',
    body: {
      data: { id: 'getting-started', status: 'published' },
      webhook: { event: 'post.published', target: 'https://site.example/api/content/sync' },
    },
    slugs: ['getting-started'],
  },
  {
    cms: 'Directus (items.update)',
    body: {
      event: 'posts.items.update',
      collection: 'posts',
      keys: ['12'],
      payload: { slug: 'getting-started', title: 'Getting started' },
    },
    slugs: ['getting-started'],
  },
  {
    cms: 'Hygraph (publish)',
    body: {
      operation: 'publish',
      data: { __typename: 'Post', id: 'ckxyz', slug: 'getting-started', stage: 'PUBLISHED' },
    },
    slugs: ['getting-started'],
  },
];
