/**
 * Health of the service: /healthz answers while the process serves HTTP (alive), /readyz while
 * every registered readiness check passes (ready for traffic). The checks are a small registry:
 * a part that loads in the background (the store, the search index) adds a check under its name
 * and /readyz reports it, with what it is waiting for, until it passes.
 */

/** One check's answer: ready or not, and (not ready) what it waits for, in a few words. */
export interface ReadyState {
  ready: boolean;
  detail?: string;
}

export type ReadyCheck = () => ReadyState;

export interface ReadyReport {
  ready: boolean;
  checks: Record<string, ReadyState>;
}

export class Readiness {
  private readonly checks = new Map<string, ReadyCheck>();

  /** Add (or replace) the check `name`; returns what removes it. A check runs on every /readyz: keep it O(1). */
  add(name: string, check: ReadyCheck): () => void {
    this.checks.set(name, check);
    return () => {
      if (this.checks.get(name) === check) this.checks.delete(name);
    };
  }

  /** Every check's state; a check that throws is not ready, its message the detail. */
  report(): ReadyReport {
    const checks: Record<string, ReadyState> = {};
    let ready = true;
    for (const [name, check] of this.checks) {
      let s: ReadyState;
      try {
        s = check();
      } catch (e) {
        s = { ready: false, detail: (e as Error).message };
      }
      checks[name] = s.detail === undefined ? { ready: s.ready } : { ready: s.ready, detail: s.detail };
      if (!s.ready) ready = false;
    }
    return { ready, checks };
  }
}
