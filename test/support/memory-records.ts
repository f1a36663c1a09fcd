import type { AppliedRegistration } from '../../contracts/registration';
import type { AppliedRegistrations } from '../../lambda/store/applied-registrations';
import type { WatchStateRecord, WatchStates } from '../../lambda/store/watch-states';

/** Applied-registration records in memory, with every write kept (tests check what was recorded, and when). */
export class MemoryAppliedRegistrations implements AppliedRegistrations {
  readonly values = new Map<string, AppliedRegistration>();
  readonly writes: Array<{ name: string; record?: AppliedRegistration }> = [];
  /** When set, every write fails with it (SSM refusing: a missing permission). */
  failWrites?: Error;

  async read(name: string): Promise<AppliedRegistration | undefined> {
    return this.values.get(name);
  }

  async write(name: string, record: AppliedRegistration): Promise<void> {
    if (this.failWrites) throw this.failWrites;
    this.writes.push({ name, record });
    this.values.set(name, record);
  }

  async remove(name: string): Promise<void> {
    this.writes.push({ name });
    this.values.delete(name);
  }
}

/** The registration watch's states in memory. */
export class MemoryWatchStates implements WatchStates {
  readonly values = new Map<string, WatchStateRecord>();

  async read(name: string): Promise<WatchStateRecord | undefined> {
    return this.values.get(name);
  }

  async write(name: string, state: WatchStateRecord): Promise<void> {
    this.values.set(name, state);
  }
}
