import { readSteps, readSuites } from '../../tools/ci-profile';

describe("where CI's time goes (tools/ci-profile.ts)", () => {
  it('reads each step of .ci/run: its wall time and exit status', () => {
    expect(readSteps('npm ci\t1000\t24000\t0\nnpm test\t30000\t420500\t1\n')).toEqual([
      { step: 'npm ci', seconds: 23, status: 0 },
      { step: 'npm test', seconds: 390.5, status: 1 },
    ]);
  });

  it('ranks suites by wall time, with the part spent outside their tests (loading, set-up, servers)', () => {
    const suites = readSuites(
      {
        testResults: [
          {
            name: '/repo/test/a.test.ts',
            startTime: 0,
            endTime: 10_000,
            assertionResults: [{ duration: 3_000 }, { duration: 2_000 }],
          },
          {
            name: '/repo/test/b.test.ts',
            startTime: 0,
            endTime: 30_000,
            assertionResults: [{ duration: 29_000 }, { duration: null }],
          },
        ],
      },
      '/repo',
    );
    expect(suites).toEqual([
      { suite: 'test/b.test.ts', seconds: 30, setupSeconds: 1, tests: 2 },
      { suite: 'test/a.test.ts', seconds: 10, setupSeconds: 5, tests: 2 },
    ]);
  });
});
