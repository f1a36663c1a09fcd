/** Preloaded (`node --require`) into cold-start processes: resolves fauxqs' *.localhost queue host names. */
import { resolveLocalhostSubdomains } from '../local-aws/local-env';

resolveLocalhostSubdomains();
