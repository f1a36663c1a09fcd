"""A Python CDK app using cdk-bank-webhooks as a Python user installs it (the jsii-built wheel):
one receiver that registers both webhooks with the bank, and one rule on a detail type.

It builds the same receiver as examples/basic-receiver/app.ts (same stack and construct IDs,
so the same logical IDs); .ci/python-check compares the two templates.

    python examples/python/app.py   # writes cdk.out/ (or $CDK_OUTDIR)
"""
import aws_cdk as cdk
from aws_cdk import aws_events_targets as targets
from aws_cdk import aws_secretsmanager as secretsmanager
from aws_cdk import aws_sqs as sqs
from cdk_bank_webhooks import (
    BankAccount,
    CooperativeConnectionProps,
    BankEventDetailType,
    BankWebhookReceiver,
    BoletoWebhookContractOptions,
    PaymentWebhookRegistrationOptions,
    ReconciliationOptions,
)

app = cdk.App()
stack = cdk.Stack(app, "BankWebhooksExample", env=cdk.Environment(account="111111111111", region="sa-east-1"))

receiver = BankWebhookReceiver(
    stack,
    "BankWebhooks",
    bank=CooperativeConnectionProps(
        base_url="https://api.bank.example",
        registration_base_url="https://api.bank.example/pagamentos",
        credentials=secretsmanager.Secret.from_secret_name_v2(stack, "BankCredentials", "cdk-bank-webhooks/bank-credentials"),
        account=BankAccount(cooperativa="0101", posto="02", conta="123456", documento="12345678000199", codigo_beneficiario="54321"),
    ),
    create_api_gateway_cloud_watch_role=True,
    payment_registration=PaymentWebhookRegistrationOptions(),
    boleto_contracts=[
        BoletoWebhookContractOptions(nome_responsavel="Finance Operations", email="finance@example.com", telefone="+55 11 3003-0000"),
    ],
    # Track Payment events from the company's payables code (source acme.payments).
    reconciliation=ReconciliationOptions(track_payment_sources=["acme.payments"]),
)

# The payables code lives in another app: a real stack names its roles in
# ReconciliationOptions(track_payment_producers=[TrackPaymentProducer(source=..., roles=[...])]).
cdk.Annotations.of(receiver).acknowledge_warning(
    "cdk-bank-webhooks:trackPaymentProducer",
    "The example has no payables code of its own; a real stack names its roles in track_payment_producers.",
)

# A consumer of verified settlements: one rule on one detail type.
inbox = sqs.Queue(stack, "SettlementsInbox", encryption=sqs.QueueEncryption.SQS_MANAGED, enforce_ssl=True)
receiver.on_verified_event("BoletoSettledRule", BankEventDetailType.BOLETO_SETTLED, target=targets.SqsQueue(inbox))

cdk.CfnOutput(stack, "PaymentsUrl", value=receiver.payments_url)
app.synth()
