import { LOCAL_AWS } from '../../tools/local-aws/local-env';

export { resolveLocalhostSubdomains } from '../../tools/local-aws/local-env';

/** Region and dummy credentials for SDK clients pointed at local servers. */
export const TEST_AWS = { region: LOCAL_AWS.region, credentials: LOCAL_AWS.credentials };
