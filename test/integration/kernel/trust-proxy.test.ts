import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { accounts } from '../../support/accounts.ts';
import { startTestApp } from '../../support/app.ts';

const test = suite('client address and X-Forwarded-For (TRUST_PROXY)');

/** Three bootstraps, each claiming another client address; the limit is two per address. */
async function statuses(trustProxy: string): Promise<number[]> {
  const t = await startTestApp({ ...accounts, env: { TRUST_PROXY: trustProxy, BOOTSTRAP_RATE_LIMIT: '2' } });
  try {
    const codes: number[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/auth/agent-bootstrap',
        headers: { 'x-forwarded-for': `203.0.113.${i + 1}` },
        payload: {
          email: `proxy-${trustProxy}-${i}@example.com`,
          password: 'a long enough password',
          organization_name: 'P',
        },
      });
      codes.push(res.statusCode);
    }
    return codes;
  } finally {
    await t.close();
  }
}

test('by default a client cannot dodge a per-address limit by claiming other addresses', async () => {
  assert.equal(await statuses('false'), [201, 201, 429]);
});

test('behind a trusted proxy each forwarded address has its own limit', async () => {
  assert.equal(await statuses('true'), [201, 201, 201]);
});

test.run();
