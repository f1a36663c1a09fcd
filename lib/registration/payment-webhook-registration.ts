import type { CustomResource } from 'aws-cdk-lib';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import {
  compactDeployed,
  type PaymentWebhookSpec,
  RegistrationAttribute,
  RegistrationResourceType,
} from '../../contracts/registration';
import type { WatchedRegistration } from '../../contracts/reconciliation';
import { type CooperativeConnectionProps, validateBankConnection } from '../families/cooperative/connection';
import { checkSecretNamed, type PropsValidation, validateProps } from '../core/props-validation';
import {
  appliedRecordNameOf,
  checkRegistrationOptions,
  checkWebhookUrl,
  createRegistrationResource,
  type RegistrationEntryProviderSettings,
  type RegistrationOptions,
} from './registration-resource';
import type { RegistrationProviderSettings } from '../core/registration-provider';

/**
 * Options of the payment callback registration that `BankWebhookReceiver` takes as
 * `paymentRegistration`: the registration's own; the provider's settings it once took are the
 * receiver's (deprecated here).
 */

export interface PaymentWebhookRegistrationOptions extends RegistrationOptions, RegistrationEntryProviderSettings {}

/** Properties of {@link PaymentWebhookRegistration}. */
export interface PaymentWebhookRegistrationProps extends RegistrationOptions, RegistrationProviderSettings {
  /** How to reach the bank; the registration is made for `bank.account` (x-conta, x-cooperativa, x-documento). */
  readonly bank: CooperativeConnectionProps;
  /** The https URL the bank calls with payment notifications (`urlCallback`). */
  readonly url: string;
  /** Secret whose plain-text value the bank sends as the whole `Authorization` header (`authorizationCallback`). */
  readonly token: secretsmanager.ISecret;
}

function checkPaymentWebhookRegistration(v: PropsValidation, props: PaymentWebhookRegistrationProps): void {
  validateBankConnection(v, props.bank, 'bank');
  checkWebhookUrl(v, props.url, 'url');
  checkRegistrationOptions(v, props, '');
  checkSecretNamed(v, props.token, 'token');
  v.check(
    !!props.token,
    'token',
    'is required: the secret holding authorizationCallback, the token the bank sends in the Authorization header',
  );
}

/**
 * The payment webhook callback registration (GET/PATCH `{registration_base_url}/v1/associado/webhook`)
 * as a custom resource. Create and update PATCH `urlCallback` and `authorizationCallback`, then
 * GET to confirm the bank holds the URL. Delete clears both, but only while the bank still holds
 * this URL. The token is read from its secret by the handler and never appears in the template.
 */
export class PaymentWebhookRegistration extends Construct {
  /** The custom resource. */
  public readonly resource: CustomResource;
  /** The URL registered as `urlCallback`. */
  public readonly url: string;
  /** The secret holding `authorizationCallback`. */
  public readonly token: secretsmanager.ISecret;
  /**
   * The SSM parameter where each deploy records what it applied at the bank (no secret: the token
   * by its secret's version id); the registration watch compares the bank with it.
   */
  public readonly appliedRecordName: string;
  /** @internal What the registration watch reads of it. */
  public readonly _watched: WatchedRegistration;

  constructor(scope: Construct, id: string, props: PaymentWebhookRegistrationProps) {
    super(scope, id);
    validateProps(this.node.path, 'PaymentWebhookRegistration', props, checkPaymentWebhookRegistration);
    this.url = props.url;
    this.token = props.token;
    const spec: PaymentWebhookSpec = {
      url: props.url,
      tokenSecretArn: props.token.secretArn,
      ...(props.takeOverExisting ? { takeOverExisting: true } : {}),
    };
    this.resource = createRegistrationResource(this, {
      ...props,
      resourceType: RegistrationResourceType.PAYMENT_WEBHOOK,
      spec,
    });
    this.appliedRecordName = appliedRecordNameOf(this);
    this._watched = { label: 'payments', appliedRecord: this.appliedRecordName, deployed: compactDeployed(spec) };
  }

  /** The URL the bank holds after the deploy (an attribute of the custom resource). */
  public get registeredUrl(): string {
    return this.resource.getAttString(RegistrationAttribute.URL);
  }
}
