const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Text or attribute value into HTML (or XML): every interpolated value of a template goes through here. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);
}

/** XML 1.0 also forbids most control characters outright; drop them rather than emit an invalid feed. */
export function escapeXml(value: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: these are exactly the characters XML forbids
  return escapeHtml(value.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, ''));
}

/**
 * JSON for a <script> data block: `<` becomes \u003c so the text can never close the script element
 * (`</script>`) or open a comment; `>`, `&` and the JavaScript line separators are escaped likewise.
 */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** The site's absolute URL for a path, from SITE_URL (a trailing slash there or not). */
export function siteUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}${path}`;
}

export function articlePath(slug: string): string {
  return `/blog/${encodeURIComponent(slug)}`;
}
