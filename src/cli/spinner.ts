/**
 * A spinner (ora) on stderr while long work runs — only on a terminal, never under `--json`, CI
 * or a dumb terminal. ora is imported only when a spinner is actually shown.
 */
/**
 * A terminal that can show a spinner or a bar: a TTY with a known width (a pseudo-terminal with no
 * window size reports 0 columns, and ora would then clear lines forever), not CI, not TERM=dumb.
 */
export function canAnimate(): boolean {
  return Boolean(process.stderr.isTTY) && (process.stderr.columns ?? 0) > 0 && !process.env.CI && process.env.TERM !== 'dumb'
}

export async function withSpinner<T>(text: string, enabled: boolean, work: () => Promise<T>): Promise<T> {
  if (!enabled || !canAnimate()) return work()
  const {default: ora} = await import('ora')
  const spinner = ora({text, stream: process.stderr, discardStdin: false}).start()
  try {
    const result = await work()
    spinner.stop()
    return result
  } catch (error) {
    spinner.stop()
    throw error
  }
}

export interface Progress {
  update(done: number): void
  stop(): void
}

/** A progress bar (cli-progress) on stderr for `total` units; a no-op off a terminal. */
export async function progressBar(label: string, total: number, enabled: boolean): Promise<Progress> {
  if (!enabled || !canAnimate() || total <= 0) return {update() {}, stop() {}}
  const {default: cliProgress} = await import('cli-progress')
  const bar = new cliProgress.SingleBar({
    stream: process.stderr, format: `${label} [{bar}] {percentage}% | {eta_formatted} left`, hideCursor: true, clearOnComplete: true,
  }, cliProgress.Presets.shades_classic)
  bar.start(total, 0)
  return {update: (done) => bar.update(Math.min(done, total)), stop: () => bar.stop()}
}
