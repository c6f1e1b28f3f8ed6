import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

// Debian's chromium package; CHROMIUM_PATH points elsewhere where it lives elsewhere.
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** The system's Chromium driven by playwright-core, or why it cannot be had (the suite skips, saying so). */
export async function launchChromium(): Promise<Browser | string> {
  if (!existsSync(CHROMIUM))
    return `no Chromium at ${CHROMIUM}; install the chromium package or set CHROMIUM_PATH`;
  try {
    return await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  } catch (error) {
    return `Chromium did not start: ${(error as Error).message.split('\n')[0]}`;
  }
}
