import { bearer, call, type Target } from './accounts.ts';

/** A step of each kind a test needs. */
export const emailStep = { type: 'email', waitDays: 0, subject: 'Hi', body: 'Hello' };
export const callStep = { type: 'call', waitDays: 2 };

async function created(res: { status: number; body: { id: string } }, what: string): Promise<string> {
  if (res.status !== 201)
    throw new Error(`creating ${what} failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id;
}

/** Creates a sequence (DRAFT) and returns its id. */
export const createSequence = async (target: Target, key: string, body: object = {}) =>
  created(
    await call(target, 'POST', '/api/sequences', {
      headers: bearer(key),
      body: { name: 'Outreach', steps: [callStep], ...body },
    }),
    'a sequence',
  );

/** A sequence's action (activate, pause, archive); answers the response. */
export const sequenceAction = (target: Target, key: string, sequenceId: string, action: string) =>
  call(target, 'POST', `/api/sequences/${sequenceId}/${action}`, { headers: bearer(key) });

/** Creates an ACTIVE sequence and returns its id. */
export async function activeSequence(target: Target, key: string, body: object = {}): Promise<string> {
  const id = await createSequence(target, key, body);
  const res = await sequenceAction(target, key, id, 'activate');
  if (res.status !== 200) throw new Error(`activating failed: ${res.status} ${JSON.stringify(res.body)}`);
  return id;
}

/** Creates a lead by hand and returns its id. */
export const createLead = async (target: Target, key: string, body: object) => {
  const res = await call(target, 'POST', '/api/leads', { headers: bearer(key), body });
  if (res.status !== 201 && res.status !== 200)
    throw new Error(`lead: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id as string;
};

/** Adds a member and returns its user id. */
export const addMember = async (target: Target, key: string, email: string) =>
  created(await call(target, 'POST', '/api/users', { headers: bearer(key), body: { email } }), 'a member');

export const addSender = async (target: Target, key: string, body: object) =>
  created(
    await call(target, 'POST', '/api/sender-accounts', {
      headers: bearer(key),
      body: { dailyLimit: 50, ...body },
    }),
    'a sender',
  );

export const enroll = (target: Target, key: string, sequenceId: string, body: object) =>
  call(target, 'POST', `/api/sequences/${sequenceId}/enrollments`, { headers: bearer(key), body });
