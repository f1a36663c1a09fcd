/**
 * The HTTP Basic credentials of the Pix API's token call: form-encoded by default (RFC 6749
 * section 2.3.1, what every deployed receiver sends), as they are when the connection says so
 * (what several providers' public clients send). A secret holding `+ / = % @ :` shows the two.
 */
import { PixBasicCredentials, type PixConnectionSettings } from '../../../contracts/pix-connection';
import type { HttpRequest } from '../../../lambda/bank/http';
import { PixClient } from '../../../lambda/bank/pix/client';

const ID = 'app+id/1=@x';
const SECRET = 's3cr+t/=%@:ok';

async function basicSent(
  settings: Partial<PixConnectionSettings>,
): Promise<{ user: string; password: string; requests: HttpRequest[] }> {
  const requests: HttpRequest[] = [];
  const client = new PixClient({
    settings: {
      baseUrl: 'https://pix.provider.example',
      tokenUrl: 'https://pix.provider.example/oauth/token',
      credentialsSecretArn: 'arn:aws:secretsmanager:sa-east-1:111111111111:secret:pix',
      simulated: true,
      ...settings,
    },
    credentials: () => Promise.resolve({ clientId: ID, clientSecret: SECRET }),
    transport: () => ({
      send: (req) => {
        requests.push(req);
        const body = req.url.endsWith('/oauth/token')
          ? JSON.stringify({ access_token: 'tok', token_type: 'Bearer', expires_in: 300 })
          : '{}';
        return Promise.resolve({ status: req.url.endsWith('/oauth/token') ? 200 : 404, headers: {}, body });
      },
      close: () => undefined,
    }),
  });
  await client.getPix('E01181521202611271200abcdefghijk', Date.now() + 5_000);
  client.close();
  const header = requests[0].headers.authorization;
  const decoded = Buffer.from(header.replace(/^Basic /, ''), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1), requests };
}

it('form-encodes the client id and secret by default, so a colon or a plus in them survives the header', async () => {
  const { user, password } = await basicSent({});
  expect([user, password]).toEqual([encodeURIComponent(ID), encodeURIComponent(SECRET)]);
  expect([decodeURIComponent(user), decodeURIComponent(password)]).toEqual([ID, SECRET]);
});

it('sends them as they are when the connection says RAW', async () => {
  const { user, password } = await basicSent({ basicCredentials: PixBasicCredentials.RAW });
  // The id holds no colon, so the first colon splits the pair as a provider splits it.
  expect([user, password]).toEqual([ID, SECRET]);
});

it('never puts the secret in the request anywhere but the Authorization header', async () => {
  for (const basicCredentials of [PixBasicCredentials.FORM_ENCODED, PixBasicCredentials.RAW]) {
    const { requests } = await basicSent({ basicCredentials });
    for (const req of requests) expect(`${req.url} ${req.body ?? ''}`).not.toContain(SECRET);
  }
});
