import type { AuthRecordStore } from '../store/types.js';

type Payload = Record<string, unknown> & { grantId?: string; uid?: string; accountId?: string; session?: { accountId?: string } };

/**
 * oidc-provider's storage adapter (one instance per model: Grant, Session, AccessToken, Client...), over the store's
 * authorization records, so every instance on the store sees every grant, session, token and registered client.
 */
export function storeAdapter(records: AuthRecordStore, onGrantRevoked?: (owner: string) => Promise<unknown>) {
  const read = (found: { payload: string; consumed: boolean } | undefined) => {
    if (!found) return undefined;
    const payload = JSON.parse(found.payload) as Payload;
    return found.consumed ? { ...payload, consumed: true } : payload;
  };
  return class StoreAdapter {
    constructor(private readonly kind: string) {}

    async upsert(id: string, payload: Payload, expiresIn?: number): Promise<void> {
      const expiresInMs = typeof expiresIn === 'number' ? expiresIn * 1000 : undefined;
      // The person a session, interaction, grant, code or token is of, so disabling them removes it.
      const owner = payload.accountId ?? payload.session?.accountId;
      await records.put(this.kind, id, JSON.stringify(payload), { expiresInMs, grantId: payload.grantId, uid: payload.uid, owner });
    }

    async find(id: string) {
      return read(await records.get(this.kind, id));
    }

    async findByUid(uid: string) {
      return read(await records.getByUid(this.kind, uid));
    }

    // The device flow, the only user of user codes, is off.
    async findByUserCode(): Promise<undefined> {
      return undefined;
    }

    async consume(id: string): Promise<void> {
      await records.consume(this.kind, id);
    }

    async destroy(id: string): Promise<void> {
      await records.remove(this.kind, id);
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      const owner = onGrantRevoked && (read(await records.get('Grant', grantId)) as Payload | undefined)?.accountId;
      await records.removeGrant(grantId);
      if (owner) await onGrantRevoked!(owner).catch(() => undefined);
    }
  };
}
