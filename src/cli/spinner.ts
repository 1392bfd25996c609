/**
 * A spinner (ora) on stderr while long work runs — only on a terminal, never under `--json`, CI
 * or a dumb terminal. ora is imported only when a spinner is actually shown.
 */
export async function withSpinner<T>(text: string, enabled: boolean, work: () => Promise<T>): Promise<T> {
  if (!enabled || !process.stderr.isTTY || process.env.CI || process.env.TERM === 'dumb') return work()
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
  if (!enabled || !process.stderr.isTTY || process.env.CI || process.env.TERM === 'dumb' || total <= 0) return {update() {}, stop() {}}
  const {default: cliProgress} = await import('cli-progress')
  const bar = new cliProgress.SingleBar({
    stream: process.stderr, format: `${label} [{bar}] {percentage}% | {eta_formatted} left`, hideCursor: true, clearOnComplete: true,
  }, cliProgress.Presets.shades_classic)
  bar.start(total, 0)
  return {update: (done) => bar.update(Math.min(done, total)), stop: () => bar.stop()}
}
