import cliProgress from 'cli-progress';

export interface Progress {
  /** `value` done so far out of `total` (undefined: not known). */
  update(value: number, total?: number): void;
  stop(): void;
}

const PLAIN_EVERY_MS = 2000;

function formatEta(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '?';
  if (seconds < 60) return `${Math.ceil(seconds)}s`;
  const minutes = Math.floor(seconds / 60);
  return minutes < 60
    ? `${minutes}m${Math.round(seconds % 60)}s`
    : `${Math.floor(minutes / 60)}h${minutes % 60}m`;
}

const count = (n: number) => Math.round(n).toLocaleString('en-US');

/**
 * Progress of a long operator command: a bar with rate and ETA on a terminal (cli-progress), a plain
 * line every two seconds otherwise (logs, CI, pipes), and a last line at the end either way.
 */
export function createProgress(
  label: string,
  unit: string,
  stream: NodeJS.WriteStream = process.stderr,
): Progress {
  const started = performance.now();
  let value = 0;
  let total: number | undefined;
  let lastLine = 0;
  const rate = () => value / Math.max((performance.now() - started) / 1000, 0.001);
  const line = () => {
    const share = total ? ` (${Math.floor((100 * value) / Math.max(total, 1))}%)` : '';
    const eta = total ? `, ETA ${formatEta((total - value) / Math.max(rate(), 1e-9))}` : '';
    return `${label}: ${count(value)}${total ? `/${count(total)}` : ''} ${unit}${share}, ${count(rate())} ${unit}/s${eta}`;
  };
  if (!stream.isTTY) {
    return {
      update(v, t) {
        value = v;
        total = t ?? total;
        if (performance.now() - lastLine < PLAIN_EVERY_MS) return;
        lastLine = performance.now();
        stream.write(`${line()}\n`);
      },
      stop() {
        stream.write(`${line()}\n`);
      },
    };
  }
  const bar = new cliProgress.SingleBar(
    {
      stream,
      format: `${label} {bar} {percentage}% | {value}/{total} ${unit} | {rate} ${unit}/s | ETA {eta_formatted}`,
      formatValue: (v, _options, type) => (type === 'value' || type === 'total' ? count(v) : String(v)),
      hideCursor: true,
      etaBuffer: 50,
    },
    cliProgress.Presets.shades_classic,
  );
  let startedBar = false;
  return {
    update(v, t) {
      value = v;
      total = t ?? total;
      const payload = { rate: count(rate()) };
      if (!startedBar) {
        bar.start(Math.max(total ?? value, 1), value, payload);
        startedBar = true;
      } else {
        bar.setTotal(Math.max(total ?? value, value, 1));
        bar.update(value, payload);
      }
    },
    stop() {
      if (startedBar) bar.stop();
      stream.write(`${line()}\n`);
    },
  };
}
