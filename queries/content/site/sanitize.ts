import sanitizeHtml from 'sanitize-html';

/**
 * What survives of upstream article HTML: text structure, headings with their ids (the table of
 * contents links to them), images, tables, links and code. Scripts, styles, event-handler attributes,
 * forms, frames and javascript: URLs do not. A change here changes rendered pages: bump
 * ARTICLE_TEMPLATE_VERSION (queries/content/site/article-page.ts) so their ETags change too.
 */
const options: sanitizeHtml.IOptions = {
  allowedTags: [
    ...sanitizeHtml.defaults.allowedTags,
    'img',
    'picture',
    'source',
    'del',
    'ins',
    'details',
    'summary',
  ],
  allowedAttributes: {
    // ids anywhere: anchors of the table of contents may sit on a heading, a section or a span.
    '*': ['id', 'title', 'lang', 'dir'],
    a: ['href', 'name', 'target', 'rel'],
    img: ['src', 'srcset', 'sizes', 'alt', 'width', 'height', 'loading', 'decoding'],
    source: ['srcset', 'sizes', 'media', 'type'],
    code: ['class'],
    pre: ['class'],
    span: ['class'],
    ol: ['start', 'reversed', 'type'],
    td: ['colspan', 'rowspan', 'headers'],
    th: ['colspan', 'rowspan', 'headers', 'scope'],
    time: ['datetime'],
  },
  allowedSchemes: ['http', 'https', 'mailto', 'tel'],
  allowedSchemesByTag: { img: ['http', 'https'], source: ['http', 'https'] },
  allowProtocolRelative: false,
  // Only language classes on code (language-ts, hljs...), not arbitrary page styling hooks.
  allowedClasses: {
    code: ['language-*', 'lang-*', 'hljs', 'hljs-*'],
    pre: ['language-*', 'lang-*', 'hljs'],
    span: ['hljs-*', 'token', 'token-*'],
  },
  transformTags: {
    // A link off the site must not hand the page to the target (window.opener).
    a: (tagName, attribs) => ({
      tagName,
      attribs: attribs.target ? { ...attribs, rel: 'noopener noreferrer' } : attribs,
    }),
  },
};

export function sanitizeArticleHtml(html: string): string {
  return sanitizeHtml(html, options);
}
