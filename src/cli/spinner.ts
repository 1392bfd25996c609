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

const megabytes = (n: number) => (n < 1e6 ? `${Math.ceil(n / 1e3)} KB` : `${(n / 1e6).toFixed(1)} MB`)

/**
 * A progress bar (cli-progress) on stderr for `total` units; a no-op off a terminal. `unit: 'bytes'`
 * shows megabytes done of the total (a restore measures the archive read so far: its row count is
 * known only at its end).
 */
export async function progressBar(label: string, total: number, enabled: boolean, options: {unit?: 'rows' | 'bytes'} = {}): Promise<Progress> {
  if (!enabled || !canAnimate() || total <= 0) return {update() {}, stop() {}}
  const {default: cliProgress} = await import('cli-progress')
  const bytes = options.unit === 'bytes'
  const bar = new cliProgress.SingleBar({
    stream: process.stderr, hideCursor: true, clearOnComplete: true,
    format: `${label} [{bar}] {percentage}% | ${bytes ? '{value} of {total} | ' : ''}{eta_formatted} left`,
    ...(bytes ? {formatValue: (v: number, _o: unknown, type: string) => (type === 'value' || type === 'total' ? megabytes(v) : String(v))} : {}),
  }, cliProgress.Presets.shades_classic)
  bar.start(total, 0)
  return {update: (done) => bar.update(Math.min(done, total)), stop: () => bar.stop()}
}

/**
 * Runs `work` with a bar of the bytes of a file read so far (`onBytes(read, total)`, called by the
 * work as it reads): for restores and imports, whose row count is known only at the archive's end.
 */
export async function withByteProgress<T>(label: string, enabled: boolean, work: (onBytes: (read: number, total: number) => void) => Promise<T>): Promise<T> {
  let bar: Progress | undefined
  let starting: Promise<Progress> | undefined
  try {
    return await work((read, total) => {
      starting ??= progressBar(label, total, enabled, {unit: 'bytes'}).then((b) => (bar = b))
      bar?.update(read)
    })
  } finally {
    ;(bar ?? (await starting))?.stop()
  }
}
