import { UsageError } from './errors.ts';

/**
 * Asks for a secret on the terminal without echoing it. Only on a TTY; scripts pass flags or stdin,
 * and without a terminal the usage error says how (`otherwise`: "pass --password-stdin", say).
 */
export function promptHidden(question: string, otherwise: string): Promise<string> {
  const input = process.stdin;
  if (!input.isTTY) {
    const what = question.replace(/\s*\(.*\)|:\s*$/g, '');
    throw new UsageError(`${what} is required and there is no terminal to ask on: ${otherwise}`);
  }
  process.stderr.write(question);
  return new Promise((resolve, reject) => {
    let value = '';
    const finish = (error?: Error) => {
      input.setRawMode(false);
      input.pause();
      input.off('data', onData);
      process.stderr.write('\n');
      if (error) reject(error);
      else resolve(value);
    };
    const onData = (chunk: Buffer) => {
      for (const char of chunk.toString('utf8')) {
        if (char === '\r' || char === '\n') return finish();
        if (char === '\u0003') return finish(new UsageError('cancelled'));
        if (char === '\u007f' || char === '\b') value = value.slice(0, -1);
        else value += char;
      }
    };
    input.setRawMode(true);
    input.resume();
    input.on('data', onData);
  });
}

/** All of standard input, without the final line break (for `--password-stdin`). */
export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}
