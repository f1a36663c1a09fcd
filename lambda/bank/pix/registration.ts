/**
 * The standard Pix API's webhooks as the handlers reach a registration ({@link RegistrationKinds}):
 * a key's (`PUT /webhook/{chave}`) and the account's two of Pix Automático (`PUT /webhookrec`,
 * `PUT /webhookcobr`), each with our URL, confirmed by `GET`; another party's URL left alone
 * unless the stack takes it over; on delete, removed only while it is ours. The URL goes without
 * the path the provider appends (`/pix`, `/rec`, `/cobr`) and without a trailing slash.
 *
 * Physical ids: `pix-webhook/<chave>` and `pix-account-webhook/<rec|cobr>` (what the provider keys
 * each webhook by).
 */
import type { PixConnectionSettings } from '../../../contracts/pix-connection';
import { normalizePixKey } from '../../../contracts/pix';
import { RecurringWebhookKind } from '../../../contracts/pix-recurring';
import { RegistrationDrift } from '../../../contracts/reconciliation';
import {
  isPixAccountWebhook,
  isPixKeyWebhook,
  isPixWebhook,
  type PixAccountWebhookSpec,
  type PixKeyWebhookSpec,
  RegistrationAttribute,
  RegistrationProperty,
  RegistrationResourceType,
} from '../../../contracts/registration';
import { readSettings, type SettingsSource } from '../../shared/settings';
import { describeUrl, sameUrl } from '../base/urls';
import type { Registration, RegistrationKinds, RegistrationSteps } from '../family';
import { readPixConnectionSettings } from './connection';

/** What a webhook's registration needs of the Pix client. */
export interface PixWebhookCaller {
  putWebhook(chave: string, webhookUrl: string, deadline: number): Promise<void>;
  getWebhook(chave: string, deadline: number): Promise<{ webhookUrl: string } | undefined>;
  deleteWebhook(chave: string, deadline: number): Promise<boolean>;
  putAccountWebhook(kind: RecurringWebhookKind, webhookUrl: string, deadline: number): Promise<void>;
  getAccountWebhook(kind: RecurringWebhookKind, deadline: number): Promise<{ webhookUrl: string } | undefined>;
  deleteAccountWebhook(kind: RecurringWebhookKind, deadline: number): Promise<boolean>;
}

const SET_BY = 'BankWebhookReceiver (pix.keys, pix.recurring)';
const RESOURCE_TYPES: readonly string[] = [
  RegistrationResourceType.PIX_KEY_WEBHOOK,
  RegistrationResourceType.PIX_ACCOUNT_WEBHOOK,
];
const ACCOUNT_WEBHOOKS: readonly string[] = Object.values(RecurringWebhookKind);
/** GETs made to confirm a PUT before giving up (the provider may take a moment to answer the new value). */
const CONFIRM_ATTEMPTS = 3;
const CONFIRM_PAUSE_MS = 1_000;

export const pixWebhookPhysicalId = (chave: string): string => `pix-webhook/${encodeURIComponent(chave)}`;
export const pixAccountWebhookPhysicalId = (kind: string): string => `pix-account-webhook/${kind}`;

/** The Pix connection and the webhook a custom resource event carries, checked (a key's, or one of the account's). */
export function readPixRegistrationProperties(
  properties: Record<string, unknown>,
  resourceType: string = RegistrationResourceType.PIX_KEY_WEBHOOK,
): {
  connection: PixConnectionSettings;
  spec: PixKeyWebhookSpec | PixAccountWebhookSpec;
} {
  const property = (name: string): { raw: string | undefined; source: SettingsSource } => ({
    raw: typeof properties[name] === 'string' ? properties[name] : undefined,
    source: { where: `The custom resource property ${name}`, setBy: SET_BY },
  });
  const connection = property(RegistrationProperty.PIX);
  const settings = readPixConnectionSettings(connection.raw, connection.source);
  const { raw, source } = property(RegistrationProperty.SPEC);
  const account = resourceType === String(RegistrationResourceType.PIX_ACCOUNT_WEBHOOK);
  const spec = account
    ? readSettings<PixAccountWebhookSpec>(raw, source, { strings: ['accountWebhook', 'url'] })
    : readSettings<PixKeyWebhookSpec>(raw, source, { strings: ['chave', 'url'] });
  if (isPixAccountWebhook(spec) && !ACCOUNT_WEBHOOKS.includes(spec.accountWebhook))
    throw new Error(
      `${source.where}: accountWebhook must be rec or cobr (the construct writes it; redeploy rather than editing it)`,
    );
  if (isPixKeyWebhook(spec) && normalizePixKey(spec.chave)?.key !== spec.chave)
    throw new Error(
      `${source.where}: chave must be a Pix key in its normal form (the construct writes it; redeploy rather than editing it)`,
    );
  if (!/^https:\/\/[^?#]*[^/?#]$/.test(spec.url))
    throw new Error(
      `${source.where}: url must be an https URL without a trailing slash, query or fragment (the provider appends /pix, /rec or /cobr)`,
    );
  return { connection: settings, spec };
}

/** One webhook at the provider: how to read, put and delete it, and how messages name it. */
interface WebhookSlot {
  readonly resourceType: RegistrationResourceType;
  readonly physicalId: string;
  /** How an error names it: `the key <chave>`, `the account's webhookrec`. */
  readonly named: string;
  /** How the delete's message names it: `Pix key webhook`, `Pix webhookrec`; and its subject, `key <chave>`. */
  readonly title: string;
  readonly short: string;
  readonly logged: Record<string, string>;
  get(deadline: number): Promise<{ webhookUrl: string } | undefined>;
  put(url: string, deadline: number): Promise<void>;
  delete(deadline: number): Promise<boolean>;
}

function slotOf(caller: PixWebhookCaller, spec: PixKeyWebhookSpec | PixAccountWebhookSpec): WebhookSlot {
  if (isPixKeyWebhook(spec)) {
    const { chave } = spec;
    return {
      resourceType: RegistrationResourceType.PIX_KEY_WEBHOOK,
      physicalId: pixWebhookPhysicalId(chave),
      named: `the key ${chave}`,
      title: 'Pix key webhook',
      short: `key ${chave}`,
      logged: { chave },
      get: (deadline) => caller.getWebhook(chave, deadline),
      put: (url, deadline) => caller.putWebhook(chave, url, deadline),
      delete: (deadline) => caller.deleteWebhook(chave, deadline),
    };
  }
  const kind = spec.accountWebhook as RecurringWebhookKind;
  return {
    resourceType: RegistrationResourceType.PIX_ACCOUNT_WEBHOOK,
    physicalId: pixAccountWebhookPhysicalId(kind),
    named: `the account's webhook${kind}`,
    title: `Pix webhook${kind}`,
    short: `the account's webhook${kind}`,
    logged: { accountWebhook: kind },
    get: (deadline) => caller.getAccountWebhook(kind, deadline),
    put: (url, deadline) => caller.putAccountWebhook(kind, url, deadline),
    delete: (deadline) => caller.deleteAccountWebhook(kind, deadline),
  };
}

/** One webhook (a key's, or one of the account's), bound to a Pix client. */
function webhookRegistration(caller: PixWebhookCaller, spec: PixKeyWebhookSpec | PixAccountWebhookSpec): Registration {
  const slot = slotOf(caller, spec);
  const { physicalId, named, title, short } = slot;
  const { url } = spec;
  const put = async (steps: RegistrationSteps): Promise<void> => {
    await slot.put(url, steps.deadline);
    for (let attempt = 1; ; attempt++) {
      const held = await slot.get(steps.deadline);
      if (held && sameUrl(held.webhookUrl, url)) return;
      if (attempt >= CONFIRM_ATTEMPTS)
        throw new Error(
          `the provider did not confirm the webhook of ${named} (it holds ${describeUrl(held?.webhookUrl)} after the PUT)`,
        );
      await steps.sleep(CONFIRM_PAUSE_MS);
    }
  };
  return {
    resourceType: slot.resourceType,
    spec,
    subject: physicalId,
    plannedPhysicalId: physicalId,
    logged: slot.logged,
    checkToken: () => undefined,
    async apply(steps, change) {
      const held = await slot.get(steps.deadline);
      const ours =
        !held ||
        sameUrl(held.webhookUrl, url) ||
        (change.previousUrl !== undefined && sameUrl(held.webhookUrl, change.previousUrl));
      if (!ours && !spec.takeOverExisting) {
        throw new Error(
          `the provider holds another party's webhook for ${named} (${describeUrl(held.webhookUrl)}): left alone. Set takeOverExisting to replace it`,
        );
      }
      if (!ours)
        steps.log.warn(`Taking over another party's webhook of ${named} (takeOverExisting)`, {
          ...slot.logged,
          held: describeUrl(held.webhookUrl),
        });
      await put(steps);
      return { physicalResourceId: physicalId, data: { [RegistrationAttribute.URL]: url } };
    },
    async remove(steps, current) {
      if (current !== physicalId) return undefined;
      const held = await slot.get(steps.deadline);
      if (!held) return `${title}: nothing registered (${short})`;
      if (!sameUrl(held.webhookUrl, url))
        return `${title}: registered by someone else (${describeUrl(held.webhookUrl)}), left alone (${short})`;
      await slot.delete(steps.deadline);
      return `${title}: removed (${short})`;
    },
    async compare(steps) {
      const held = await slot.get(steps.deadline);
      if (!held) return { drift: [RegistrationDrift.MISSING], held: 'nothing' };
      return sameUrl(held.webhookUrl, url)
        ? { drift: [], held: describeUrl(held.webhookUrl) }
        : { drift: [RegistrationDrift.OTHER_URL], held: describeUrl(held.webhookUrl) };
    },
    repair: put,
  };
}

/**
 * The Pix API's webhooks (the keys', the account's), bound to a Pix client per connection: `pixFor` gives the deploy-time
 * provider's client for a resource's connection (and the watch's, for what the stack deployed,
 * on `deployedConnection`).
 */
export function pixRegistrations(
  pixFor: (settings: PixConnectionSettings) => PixWebhookCaller,
  deployedConnection?: PixConnectionSettings,
): RegistrationKinds {
  return {
    resourceTypes: [RegistrationResourceType.PIX_KEY_WEBHOOK, RegistrationResourceType.PIX_ACCOUNT_WEBHOOK],
    ownsSpec: isPixWebhook,
    fromProperties(resourceType, properties) {
      if (!RESOURCE_TYPES.includes(resourceType))
        throw new Error(
          `Unknown resource type ${resourceType}: the Pix API's registrations are ${RESOURCE_TYPES.join(' and ')}`,
        );
      const { connection, spec } = readPixRegistrationProperties(properties, resourceType);
      return webhookRegistration(pixFor(connection), spec);
    },
    fromDeployed(spec) {
      if (!isPixWebhook(spec)) throw new Error('not a Pix webhook');
      if (!deployedConnection) throw new Error('No Pix connection was given for the webhooks the stack deployed');
      return webhookRegistration(pixFor(deployedConnection), spec);
    },
  };
}
