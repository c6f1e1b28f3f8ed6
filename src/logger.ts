import pino, { type Logger, type LoggerOptions } from 'pino';

/**
 * Paths never written to a log line: credentials in headers and anything secret-looking in bodies,
 * configuration or errors.
 */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers.cookie',
  'headers.authorization',
  'headers["x-api-key"]',
  '*.password',
  '*.secret',
  '*.apiKey',
  '*.api_key',
  '*.secretHash',
  '*.passwordHash',
  'config.DATABASE_URL',
  'config.CONTENT_API_KEY',
  'config.CRON_SECRET',
  'config.METRICS_TOKEN',
  'config.SECRETS_MASTER_KEY',
  'config.SECRETS_PREVIOUS_MASTER_KEYS',
];

export function loggerOptions(level: string): LoggerOptions {
  return {
    level,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    serializers: {
      err: pino.stdSerializers.err,
    },
  };
}

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return destination ? pino(loggerOptions(level), destination) : pino(loggerOptions(level));
}

export type { Logger };
