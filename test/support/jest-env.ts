/**
 * The environment of every test file. Deprecation warnings of aws-cdk-lib's jsii assembly are
 * quiet here: the one a green run met was cdk-nag's own read of `CfnEventBusPolicy#principal`.
 * The library's own code is held to none at all by test/api/deprecations.test.ts, which
 * synthesizes the receivers with `JSII_DEPRECATED=fail`.
 */
process.env.JSII_DEPRECATED ??= 'quiet';
