import { SIMULATOR_OUT_FILE } from '../../tools/bundle-handlers';

/**
 * Users' tests import the simulator from the package (`cdk-bank-webhooks/simulator`):
 * the bundled file must work on its own, with the typed control client.
 */
describe('the published simulator module', () => {
  it('starts on port 0, serves the control API through its typed client, and stops', async () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const published = require(SIMULATOR_OUT_FILE) as typeof import('../../simulator');
    const simulator = await published.BankSimulator.start();
    try {
      expect(simulator.baseUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      const boleto = await simulator.control.createBoleto({ valor: '1.50' });
      const change = await simulator.control.settleBoleto(boleto.nossoNumero);
      expect(change.boleto.situacao).toBe('LIQUIDADO');
      expect(change.skipped).toMatch(/no contract/);
      expect((await simulator.control.info()).caFile).toBe(simulator.caFile);
    } finally {
      await simulator.stop();
    }
    // Trusting its CA, so only a closed port can make the call fail.
    await expect(
      published.httpCall(`${simulator.baseUrl}/control/info`, { trustedCas: [simulator.caPem] }),
    ).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });
});
