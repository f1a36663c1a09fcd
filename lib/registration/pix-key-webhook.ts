import { type CustomResource, type RemovalPolicy, Token } from 'aws-cdk-lib';
import { Construct } from 'constructs';
import type { WatchedRegistration } from '../../contracts/reconciliation';
import { normalizePixKey } from '../../contracts/pix';
import { type PixKeyWebhookSpec, RegistrationAttribute, RegistrationResourceType } from '../../contracts/registration';
import { type PixConnectionProps, validatePixConnection } from '../families/pix/connection';
import { type PropsValidation, validateProps } from '../core/props-validation';
import type { RegistrationProviderSettings } from '../core/registration-provider';
import { checkRegistrationOptions } from './registration-resource';
import { checkPixWebhookUrl, pixWebhookResource } from './pix-webhook-resource';

/** Properties of {@link PixKeyWebhook}. */
export interface PixKeyWebhookProps extends RegistrationProviderSettings {
  /** The provider's standard Pix API, under the receiver's Pix credentials (scope `webhook.write` and `webhook.read`). */
  readonly connection: PixConnectionProps;
  /** The key, in any usual form (registered in the DICT's). */
  readonly chave: string;
  /** The Pix API's URL (`pixUrl`): without `/pix`, which the provider appends, and without a trailing slash. */
  readonly url: string;
  /**
   * Replace another party's webhook the provider holds for the key. Without it, a deploy that finds
   * another URL fails, naming it, and changes nothing.
   * @default false
   */
  readonly takeOverExisting?: boolean;
  /**
   * What `cdk destroy` (or removing the key) does at the provider: DESTROY removes the webhook
   * while it is still ours; RETAIN leaves it.
   * @default RemovalPolicy.DESTROY
   */
  readonly removalPolicy?: RemovalPolicy;
}

function checkPixKeyWebhook(v: PropsValidation, props: PixKeyWebhookProps): void {
  validatePixConnection(v, props.connection, 'connection');
  if (!Token.isUnresolved(props.chave))
    v.check(
      normalizePixKey(props.chave ?? '') !== undefined,
      'chave',
      `must be a Pix key (an EVP, an email, a phone as +55..., a CPF or a CNPJ), got "${props.chave}"`,
    );
  checkPixWebhookUrl(v, props.url, '/pix');
  checkRegistrationOptions(v, props, '');
}

/**
 * A Pix key's webhook at the standard Pix API, kept by `cdk deploy` (`PUT /webhook/{chave}` with
 * our URL, confirmed by `GET`) and removed by `cdk destroy` while it is still ours; another party's
 * URL is left alone unless `takeOverExisting`. What each deploy applied is recorded, as for the
 * bank's registrations. `BankWebhookReceiver` makes one per key of `pix.keys`.
 */
export class PixKeyWebhook extends Construct {
  /** The custom resource. */
  public readonly resource: CustomResource;
  /** The key, in the DICT's form. */
  public readonly chave: string;
  /** The SSM parameter where each deploy records what it applied. */
  public readonly appliedRecordName: string;
  /** The Pix API the key's webhook is at. */
  public readonly connection: PixConnectionProps;
  /** The URL registered for the key. */
  public readonly url: string;
  /** Whether another party's webhook for the key is replaced. */
  public readonly takeOverExisting: boolean;
  /** @internal What the registration watch reads of it. */
  public readonly _watched: WatchedRegistration;

  constructor(scope: Construct, id: string, props: PixKeyWebhookProps) {
    super(scope, id);
    validateProps(this.node.path, 'PixKeyWebhook', props, checkPixKeyWebhook);
    this.chave = normalizePixKey(props.chave)?.key ?? props.chave;
    const spec: PixKeyWebhookSpec = {
      chave: this.chave,
      url: props.url,
      ...(props.takeOverExisting ? { takeOverExisting: true } : {}),
    };
    this.connection = props.connection;
    this.url = props.url;
    this.takeOverExisting = props.takeOverExisting ?? false;
    const made = pixWebhookResource(this, props, RegistrationResourceType.PIX_KEY_WEBHOOK, spec, `pix ${this.chave}`);
    this.resource = made.resource;
    this.appliedRecordName = made.appliedRecordName;
    this._watched = made.watched;
  }

  /** The URL the provider holds after the deploy (an attribute of the custom resource). */
  public get registeredUrl(): string {
    return this.resource.getAttString(RegistrationAttribute.URL);
  }
}
