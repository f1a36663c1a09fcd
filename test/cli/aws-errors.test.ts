import { CliExit } from '../../contracts/operations';
import { explainAwsError, OperatorError } from '../../cli/operate/aws';

describe('what the operator reads when AWS refuses', () => {
  const denied = (message: string) => Object.assign(new Error(message), { name: 'AccessDenied' });

  it("says to name the role in operatorRoles when a queue's policy refuses its SendMessage (a redrive, a reverify), exit 3", () => {
    const error = explainAwsError(
      denied(
        'User: arn:aws:sts::111111111111:assumed-role/oncall/alice is not authorized to perform: sqs:sendmessage on resource: arn:aws:sqs:sa-east-1:111111111111:Billing-Queue with an explicit deny in a resource-based policy',
      ),
      'dlq redrive',
    );
    expect(error).toBeInstanceOf(OperatorError);
    expect((error as OperatorError).exit).toBe(CliExit.AWS_ACCESS);
    expect(error.message).toMatch(
      /^AWS refused dlq redrive \(AccessDenied\): .*explicit deny.*name this role in the receiver's operatorRoles/s,
    );
  });

  it('says nothing of operatorRoles for another refusal', () => {
    const error = explainAwsError(
      denied(
        'User: arn:aws:sts::111111111111:assumed-role/oncall/alice is not authorized to perform: cloudformation:DescribeStacks',
      ),
      'reading stack "Billing"',
    );
    expect(error.message).not.toMatch(/operatorRoles/);
  });
});
