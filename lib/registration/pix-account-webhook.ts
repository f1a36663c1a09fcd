import type { CustomResource, RemovalPolicy } from 'aws-cdk-lib';
import { Construct } from 'constructs';
import type { WatchedRegistration } from '../../contracts/reconciliation';
import { RecurringWebhookKind } from '../../contracts/pix-recurring';
import {
  type PixAccountWebhookSpec,
  RegistrationAttribute,
  RegistrationResourceType,
} from '../../contracts/registration';
import { type PixConnectionProps, validatePixConnection } from '../families/pix/connection';
import { type PropsValidation, validateProps } from '../core/props-validation';
import type { RegistrationProviderSettings } from '../core/registration-provider';
import { checkRegistrationOptions } from './registration-resource';
import { checkPixWebhookUrl, pixWebhookResource } from './pix-webhook-resource';

/** Properties of {@link PixAccountWebhook}. */
export interface PixAccountWebhookProps extends RegistrationProviderSettings {
  /**
   * The provider's standard Pix API, under the account's Pix credentials (scopes
   * `webhookrec.read` and `webhookrec.write`, or `webhookcobr.read` and `webhookcobr.write`).
   */
  readonly connection: PixConnectionProps;
  /** Which of the account's webhooks: `REC` (`PUT /webhookrec`) or `COBR` (`PUT /webhookcobr`). */
  readonly webhook: RecurringWebhookKind;
  /** The Pix API's URL (`pixUrl`): without `/rec` or `/cobr`, which the provider appends, and without a trailing slash. */
  readonly url: string;
  /**
   * Replace another party's webhook the provider holds for the account. Without it, a deploy that
   * finds another URL fails, naming it, and changes nothing.
   * @default false
   */
  readonly takeOverExisting?: boolean;
  /**
   * What `cdk destroy` does at the provider: DESTROY removes the webhook while it is still ours;
   * RETAIN leaves it.
   * @default RemovalPolicy.DESTROY
   */
  readonly removalPolicy?: RemovalPolicy;
}

function checkPixAccountWebhook(v: PropsValidation, props: PixAccountWebhookProps): void {
  validatePixConnection(v, props.connection, 'connection');
  v.check(
    (Object.values(RecurringWebhookKind) as string[]).includes(props.webhook),
    'webhook',
    `must be RecurringWebhookKind.REC or RecurringWebhookKind.COBR, got "${props.webhook}"`,
  );
  checkPixWebhookUrl(v, props.url, '/rec or /cobr');
  checkRegistrationOptions(v, props, '');
}

/**
 * One of the account's Pix Automático webhooks at the standard Pix API (one each per account, not
 * per key), kept by `cdk deploy` (`PUT /webhookrec` or `PUT /webhookcobr` with our URL, confirmed by
 * `GET`) and removed by `cdk destroy` while it is still ours; another party's URL is left alone
 * unless `takeOverExisting`. What each deploy applied is recorded. `BankWebhookReceiver` makes both
 * when given `pix.recurring`.
 */
export class PixAccountWebhook extends Construct {
  /** The custom resource. */
  public readonly resource: CustomResource;
  /** Which of the account's webhooks. */
  public readonly webhook: RecurringWebhookKind;
  /** The SSM parameter where each deploy records what it applied. */
  public readonly appliedRecordName: string;
  /** The URL registered. */
  public readonly url: string;
  /** @internal What the registration watch reads of it. */
  public readonly _watched: WatchedRegistration;

  constructor(scope: Construct, id: string, props: PixAccountWebhookProps) {
    super(scope, id);
    validateProps(this.node.path, 'PixAccountWebhook', props, checkPixAccountWebhook);
    this.webhook = props.webhook;
    this.url = props.url;
    const spec: PixAccountWebhookSpec = {
      accountWebhook: props.webhook,
      url: props.url,
      ...(props.takeOverExisting ? { takeOverExisting: true } : {}),
    };
    const made = pixWebhookResource(
      this,
      props,
      RegistrationResourceType.PIX_ACCOUNT_WEBHOOK,
      spec,
      `pix webhook${props.webhook}`,
    );
    this.resource = made.resource;
    this.appliedRecordName = made.appliedRecordName;
    this._watched = made.watched;
  }

  /** The URL the provider holds after the deploy (an attribute of the custom resource). */
  public get registeredUrl(): string {
    return this.resource.getAttString(RegistrationAttribute.URL);
  }
}
