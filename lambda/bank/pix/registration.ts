/**
 * A Pix key's webhook at the standard Pix API (PIX-NOTES.md) as the handlers reach a registration
 * ({@link RegistrationKinds}): `PUT /webhook/{chave}` with our URL, confirmed by `GET`; another
 * party's URL left alone unless the stack takes it over; on delete, removed only while it is ours.
 * The URL goes without `/pix` (the provider appends it) and without a trailing slash.
 *
 * Physical id: `pix-webhook/<chave>` (what the provider keys the webhook by).
 */
import type { PixConnectionSettings } from '../../../contracts/pix-connection';
import { normalizePixKey } from '../../../contracts/pix';
import { RegistrationDrift } from '../../../contracts/reconciliation';
import {
  type PixKeyWebhookSpec,
  RegistrationAttribute,
  RegistrationProperty,
  RegistrationResourceType,
  type RegistrationSpec,
} from '../../../contracts/registration';
import { readSettings, type SettingsSource } from '../../shared/settings';
import { describeUrl, sameUrl } from '../base/urls';
import type { Registration, RegistrationKinds, RegistrationSteps } from '../family';
import { readPixConnectionSettings } from './connection';

/** What a key's registration needs of the Pix client. */
export interface PixWebhookCaller {
  putWebhook(chave: string, webhookUrl: string, deadline: number): Promise<void>;
  getWebhook(chave: string, deadline: number): Promise<{ webhookUrl: string } | undefined>;
  deleteWebhook(chave: string, deadline: number): Promise<boolean>;
}

const SET_BY = 'BankWebhookReceiver (pix.keys)';
/** GETs made to confirm a PUT before giving up (the provider may take a moment to answer the new value). */
const CONFIRM_ATTEMPTS = 3;
const CONFIRM_PAUSE_MS = 1_000;

export const pixWebhookPhysicalId = (chave: string): string => `pix-webhook/${encodeURIComponent(chave)}`;

const isPixSpec = (spec: RegistrationSpec): spec is PixKeyWebhookSpec => 'chave' in spec;

/** The Pix connection and the key's webhook a custom resource event carries, checked. */
export function readPixRegistrationProperties(properties: Record<string, unknown>): {
  connection: PixConnectionSettings;
  spec: PixKeyWebhookSpec;
} {
  const property = (name: string): { raw: string | undefined; source: SettingsSource } => ({
    raw: typeof properties[name] === 'string' ? properties[name] : undefined,
    source: { where: `The custom resource property ${name}`, setBy: SET_BY },
  });
  const connection = property(RegistrationProperty.PIX);
  const settings = readPixConnectionSettings(connection.raw, connection.source);
  const { raw, source } = property(RegistrationProperty.SPEC);
  const spec = readSettings<PixKeyWebhookSpec>(raw, source, { strings: ['chave', 'url'] });
  if (normalizePixKey(spec.chave)?.key !== spec.chave)
    throw new Error(
      `${source.where}: chave must be a Pix key in its normal form (the construct writes it; redeploy rather than editing it)`,
    );
  if (!/^https:\/\/[^?#]*[^/?#]$/.test(spec.url))
    throw new Error(
      `${source.where}: url must be an https URL without a trailing slash, query or fragment (the provider appends /pix)`,
    );
  return { connection: settings, spec };
}

/** One key's webhook, bound to a Pix client. */
function keyRegistration(caller: PixWebhookCaller, spec: PixKeyWebhookSpec): Registration {
  const physicalId = pixWebhookPhysicalId(spec.chave);
  const { chave, url } = spec;
  const put = async (steps: RegistrationSteps): Promise<void> => {
    await caller.putWebhook(chave, url, steps.deadline);
    for (let attempt = 1; ; attempt++) {
      const held = await caller.getWebhook(chave, steps.deadline);
      if (held && sameUrl(held.webhookUrl, url)) return;
      if (attempt >= CONFIRM_ATTEMPTS)
        throw new Error(
          `the provider did not confirm the webhook of the key (it holds ${describeUrl(held?.webhookUrl)} after the PUT)`,
        );
      await steps.sleep(CONFIRM_PAUSE_MS);
    }
  };
  return {
    resourceType: RegistrationResourceType.PIX_KEY_WEBHOOK,
    spec,
    subject: physicalId,
    plannedPhysicalId: physicalId,
    logged: { chave },
    checkToken: () => undefined,
    async apply(steps, change) {
      const held = await caller.getWebhook(chave, steps.deadline);
      const ours =
        !held ||
        sameUrl(held.webhookUrl, url) ||
        (change.previousUrl !== undefined && sameUrl(held.webhookUrl, change.previousUrl));
      if (!ours && !spec.takeOverExisting) {
        throw new Error(
          `the provider holds another party's webhook for the key ${chave} (${describeUrl(held.webhookUrl)}): left alone. Set takeOverExisting to replace it`,
        );
      }
      if (!ours)
        steps.log.warn("Taking over another party's webhook of the key (takeOverExisting)", {
          chave,
          held: describeUrl(held.webhookUrl),
        });
      await put(steps);
      return { physicalResourceId: physicalId, data: { [RegistrationAttribute.URL]: url } };
    },
    async remove(steps, current) {
      if (current !== physicalId) return undefined;
      const held = await caller.getWebhook(chave, steps.deadline);
      if (!held) return `Pix key webhook: nothing registered (key ${chave})`;
      if (!sameUrl(held.webhookUrl, url))
        return `Pix key webhook: registered by someone else (${describeUrl(held.webhookUrl)}), left alone (key ${chave})`;
      await caller.deleteWebhook(chave, steps.deadline);
      return `Pix key webhook: removed (key ${chave})`;
    },
    async compare(steps) {
      const held = await caller.getWebhook(chave, steps.deadline);
      if (!held) return { drift: [RegistrationDrift.MISSING], held: 'nothing' };
      return sameUrl(held.webhookUrl, url)
        ? { drift: [], held: describeUrl(held.webhookUrl) }
        : { drift: [RegistrationDrift.OTHER_URL], held: describeUrl(held.webhookUrl) };
    },
    repair: put,
  };
}

/**
 * Pix keys' webhooks, bound to a Pix client per connection: `pixFor` gives the deploy-time
 * provider's client for a resource's connection (and the watch's, for what the stack deployed,
 * on `deployedConnection`).
 */
export function pixRegistrations(
  pixFor: (settings: PixConnectionSettings) => PixWebhookCaller,
  deployedConnection?: PixConnectionSettings,
): RegistrationKinds {
  return {
    resourceTypes: [RegistrationResourceType.PIX_KEY_WEBHOOK],
    ownsSpec: isPixSpec,
    fromProperties(resourceType, properties) {
      if (resourceType !== String(RegistrationResourceType.PIX_KEY_WEBHOOK))
        throw new Error(
          `Unknown resource type ${resourceType}: the Pix API's registration is ${RegistrationResourceType.PIX_KEY_WEBHOOK}`,
        );
      const { connection, spec } = readPixRegistrationProperties(properties);
      return keyRegistration(pixFor(connection), spec);
    },
    fromDeployed(spec) {
      if (!isPixSpec(spec)) throw new Error("not a Pix key's webhook");
      if (!deployedConnection) throw new Error('No Pix connection was given for the keys the stack deployed');
      return keyRegistration(pixFor(deployedConnection), spec);
    },
  };
}
