/** Progress for long work: a bar on a terminal, plain JSON log lines otherwise. */
import cliProgress from 'cli-progress';

export interface Progress {
  update(done: number, total: number, phase?: string): void;
  stop(): void;
}

export function progress(label: string, stream: NodeJS.WriteStream = process.stderr): Progress {
  if (stream.isTTY) {
    const bar = new cliProgress.SingleBar(
      { format: `${label} [{bar}] {percentage}% {value}/{total} {phase} eta {eta_formatted}`, stream, hideCursor: true },
      cliProgress.Presets.shades_classic,
    );
    // a stopped bar stays stopped: a late update must not start it again (its redraw timer would keep the process alive)
    let state: 'new' | 'running' | 'stopped' = 'new';
    return {
      update(done, total, phase = '') {
        if (state === 'stopped') return;
        if (state === 'new') {
          bar.start(total, 0, { phase });
          state = 'running';
        }
        bar.setTotal(total);
        bar.update(Math.floor(done), { phase });
      },
      stop() {
        if (state === 'running') bar.stop();
        state = 'stopped';
      },
    };
  }
  let last = 0;
  return {
    update(done, total, phase = '') {
      const now = Date.now();
      if (now - last < 2000 && done < total) return;
      last = now;
      stream.write(`${JSON.stringify({ time: new Date(now).toISOString(), msg: label, phase, done: Math.floor(done), total })}\n`);
    },
    stop() {},
  };
}
