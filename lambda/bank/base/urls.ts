/** How a registered URL compares with ours, and how one is shown without its query: the same for every API family. */
function normalizedUrl(url: string): string {
  try {
    const parsed = new URL(url.trim());
    return `${parsed.protocol}//${parsed.host}${parsed.pathname.replace(/\/+$/, '')}${parsed.search}`;
  } catch {
    return url.trim();
  }
}

/** Whether the bank holds `ours`: the same URL, ignoring the case of the host and a final slash. */
export function sameUrl(held: unknown, ours: string): boolean {
  return typeof held === 'string' && normalizedUrl(held) === normalizedUrl(ours);
}

/** A URL someone else registered, for logs and errors: origin and path, never its query (it may hold a secret). */
export function describeUrl(url: unknown): string {
  if (typeof url !== 'string' || !url) return 'nothing';
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}${parsed.search ? '?…' : ''}`;
  } catch {
    return 'a value that is not a URL';
  }
}
