/**
 * The stack's registrations as CloudFormation drives them, locally: each custom resource of the
 * template sent to the registration function in template order on a deploy, changed by an update,
 * and deleted in reverse order on a destroy, with the stack's status as DescribeStacks answers it
 * meanwhile (the registration watch repairs only in a completed stack).
 */
import { SWEEP_SETTINGS_ENV, type SweepSettings, type WatchedRegistration } from '../../contracts/reconciliation';
import {
  type BoletoContractSpec,
  compactDeployed,
  type PaymentWebhookSpec,
  RegistrationProperty,
} from '../../contracts/registration';
import { LocalCustomResource } from '../local-aws/custom-resource';
import type { LocalEventBridge } from '../local-aws/eventbridge-server';
import type { LocalFunction } from '../local-aws/local-function';
import type { ReceiverDeployment } from './template';

/** What the registrations are driven with. */
export interface RegistrationSurroundings {
  readonly deployment: ReceiverDeployment;
  /** The stack's id (`AWS::StackId`) the custom resources' events carry. */
  readonly stackId: string;
  /** The registration function (the stack has one when it has registrations). */
  readonly handler?: LocalFunction;
  /** The sweep's function, whose settings say what the watch holds the bank to. */
  readonly sweeper?: LocalFunction;
  readonly events: LocalEventBridge;
  /** Resolves a template value against the local stand-ins. */
  readonly resolve: (value: unknown) => unknown;
  readonly setStackStatus: (status: string) => void;
}

/** A registration of the template and its custom resource. */
interface RunningRegistration {
  readonly logicalId: string;
  readonly type: string;
  readonly resource: LocalCustomResource;
}

/** The registrations of the template, driven as a deploy, an update and a destroy drive them. */
export class LocalRegistrations {
  private readonly running: RunningRegistration[];

  constructor(private readonly around: RegistrationSurroundings) {
    const { deployment: d, handler } = around;
    this.running =
      !handler || !d.registrationHandler
        ? []
        : d.registrations.map((registration) => ({
            logicalId: registration.logicalId,
            type: registration.type,
            resource: new LocalCustomResource({
              handler: (event) => handler.invoke(event, event.RequestId),
              resourceType: registration.type,
              logicalResourceId: registration.logicalId,
              timeoutMs: d.registrationHandler!.timeoutSeconds * 1000,
              stackId: around.stackId,
            }),
          }));
  }

  /**
   * A deploy: a Create of each registration, in template order, then of the sweep's schedule rule
   * (which depends on them); the stack CREATE_IN_PROGRESS meanwhile and CREATE_COMPLETE after
   * (ROLLBACK_COMPLETE when a registration failed).
   */
  async register(): Promise<void> {
    this.around.setStackStatus('CREATE_IN_PROGRESS');
    try {
      for (const registration of this.running) {
        const properties = this.around.resolve(
          this.around.deployment.registrations.find((r) => r.logicalId === registration.logicalId)!.properties,
        ) as Record<string, unknown>;
        await registration.resource.create(properties);
      }
    } catch (error) {
      this.around.setStackStatus('ROLLBACK_COMPLETE');
      throw error;
    }
    const rule = this.around.deployment.reconciliation?.scheduleRuleName;
    if (rule) this.around.events.putRule(rule);
    this.around.setStackStatus('CREATE_COMPLETE');
  }

  /**
   * An update of the first registration of `resourceType`: an Update with the properties `change`
   * makes of the current ones, the stack UPDATE_IN_PROGRESS meanwhile (and while `during` runs),
   * then UPDATE_COMPLETE.
   */
  async update(
    resourceType: string,
    change: (properties: Record<string, unknown>) => Record<string, unknown>,
    during?: () => Promise<void>,
  ): Promise<void> {
    const registration = this.running.find((r) => r.type === resourceType);
    if (!registration?.resource.state) throw new Error(`The stack has no ${resourceType} registered to update`);
    this.around.setStackStatus('UPDATE_IN_PROGRESS');
    try {
      await registration.resource.update(change(registration.resource.state.properties));
      await this.deployWatched(registration.resource.state.properties);
      await during?.();
    } catch (error) {
      this.around.setStackStatus('UPDATE_ROLLBACK_COMPLETE');
      throw error;
    }
    this.around.setStackStatus('UPDATE_COMPLETE');
  }

  /**
   * A destroy: the stack DELETE_IN_PROGRESS (and stays so: a sweep still running sees it), the
   * sweep's schedule rule first (it depends on the registrations), then a Delete of each
   * registration that exists, in reverse order.
   */
  async unregister(): Promise<void> {
    this.around.setStackStatus('DELETE_IN_PROGRESS');
    const rule = this.around.deployment.reconciliation?.scheduleRuleName;
    if (rule) this.around.events.deleteRule(rule);
    for (const registration of [...this.running].reverse()) {
      if (registration.resource.state) await registration.resource.delete();
    }
  }

  /** The registrations as created: logical id, type, physical id and the data they answered. */
  registered(): Array<{ logicalId: string; type: string; physicalResourceId?: string; data?: Record<string, string> }> {
    return this.running.map((r) => ({
      logicalId: r.logicalId,
      type: r.type,
      physicalResourceId: r.resource.state?.physicalResourceId,
      data: r.resource.state?.data,
    }));
  }

  /** The same deploy changes what the sweep's settings say the registration is (the watch holds the bank to it). */
  private async deployWatched(properties: Record<string, unknown>): Promise<void> {
    const sweeper = this.around.sweeper;
    if (!sweeper) return;
    const environment = { ...sweeper.variables };
    const settings = JSON.parse(environment[SWEEP_SETTINGS_ENV]) as SweepSettings;
    if (!settings.watch) return;
    const deployed = compactDeployed(
      JSON.parse(properties[RegistrationProperty.SPEC] as string) as PaymentWebhookSpec | BoletoContractSpec,
    );
    const swap = (w: WatchedRegistration): WatchedRegistration =>
      w.appliedRecord === properties[RegistrationProperty.APPLIED_RECORD] ? { ...w, deployed } : w;
    const { payment, contracts } = settings.watch;
    const watch = { ...settings.watch, ...(payment ? { payment: swap(payment) } : {}), contracts: contracts.map(swap) };
    await sweeper.updateEnvironment({ ...environment, [SWEEP_SETTINGS_ENV]: JSON.stringify({ ...settings, watch }) });
  }
}
