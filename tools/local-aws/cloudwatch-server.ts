import { JsonProtocolServer, ServiceError } from './json-protocol-server';

/** An alarm as the local CloudWatch answers it. */
export interface LocalAlarm {
  readonly name: string;
  readonly description?: string;
  /** OK, ALARM or INSUFFICIENT_DATA. */
  readonly state: string;
  /** When it took that state (epoch ms). */
  readonly since: number;
}

/**
 * A local endpoint that speaks CloudWatch's JSON protocol (awsJson1_0) for what the operator CLI
 * reads: DescribeAlarms by name or name prefix, from `alarms` (the local runner's own evaluation of the
 * template's alarms), and GetMetricData, which answers no datapoints (AWS services' own metrics,
 * such as a queue's oldest message, do not exist locally). Loopback only.
 */
export class LocalCloudWatch extends JsonProtocolServer {
  constructor(private readonly alarms: () => readonly LocalAlarm[]) {
    super('GraniteServiceVersion20100801', 'CloudWatch');
  }

  protected handle(operation: string, input: Record<string, unknown>): unknown {
    if (operation === 'DescribeAlarms') {
      const names = Array.isArray(input.AlarmNames) ? (input.AlarmNames as string[]) : undefined;
      const prefix = typeof input.AlarmNamePrefix === 'string' ? input.AlarmNamePrefix : undefined;
      return {
        MetricAlarms: this.alarms()
          .filter((alarm) => (!names || names.includes(alarm.name)) && (!prefix || alarm.name.startsWith(prefix)))
          .map((alarm) => ({
            AlarmName: alarm.name,
            AlarmDescription: alarm.description,
            StateValue: alarm.state,
            StateUpdatedTimestamp: alarm.since / 1000,
          })),
        CompositeAlarms: [],
      };
    }
    if (operation === 'GetMetricData') {
      const queries = Array.isArray(input.MetricDataQueries) ? (input.MetricDataQueries as Array<{ Id: string }>) : [];
      return {
        MetricDataResults: queries.map((q) => ({ Id: q.Id, Timestamps: [], Values: [], StatusCode: 'Complete' })),
        Messages: [],
      };
    }
    throw new ServiceError(400, 'InvalidAction', `${operation} is not supported by the local CloudWatch`);
  }
}
