import dns from 'node:dns';

/** Region and dummy credentials for SDK clients pointed at local servers. */
export const TEST_AWS = {
  region: 'us-east-1',
  credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
} as const;

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

/**
 * fauxqs' queue URLs are http://sqs.<region>.localhost:<port>/..., and this machine's resolver
 * does not resolve *.localhost. Patches dns.lookup so those names resolve to 127.0.0.1 (what
 * RFC 6761 asks of them). Returns a function that restores the original.
 */
export function resolveLocalhostSubdomains(): () => void {
  const original = dns.lookup;
  const patched = (hostname: string, options: unknown, callback?: unknown): void => {
    const cb = (typeof options === 'function' ? options : callback) as LookupCallback;
    const opts = (typeof options === 'object' && options !== null ? options : {}) as dns.LookupOptions;
    if (hostname.endsWith('.localhost')) {
      if (opts.all) cb(null, [{ address: '127.0.0.1', family: 4 }]);
      else cb(null, '127.0.0.1', 4);
      return;
    }
    (original as (...args: unknown[]) => void)(hostname, options, callback);
  };
  (dns as { lookup: unknown }).lookup = patched;
  return () => {
    (dns as { lookup: unknown }).lookup = original;
  };
}
