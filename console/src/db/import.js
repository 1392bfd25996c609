// Import of an NDJSON file into a db, as `svc db import` does it: lines of {table_name, data}
// (an export's lines too) or bare data objects; the whole file is checked first (dry_run) and one
// bad record imports nothing; the problems are the CLI's per-line messages (`line 3: pages must
// be an integer`). Batches are all or nothing; a batch refused while importing says where it
// stopped and how many came before it.
import {lineErrors, recordOfLine} from '../../../src/core/dbs/import-lines.ts'

export const IMPORT_BATCH = 500
const MAX_PROBLEMS = 20

/** The file's lines as batches of records with their line numbers; lines that are no JSON object are problems. */
export function parseLines(text, file, size = IMPORT_BATCH) {
  /** @typedef {{records: unknown[], lines: number[]}} Batch */
  /** @type {Batch[]} */
  const batches = []
  /** @type {string[]} */
  const problems = []
  /** @type {Batch} */
  let batch = {records: [], lines: []}
  text.split(/\r?\n/).forEach((line, i) => {
    const lineNo = i + 1
    if (!line.trim()) return
    let value
    try {
      value = JSON.parse(line)
    } catch {
      problems.push(`line ${lineNo} of ${file} is not JSON`)
      return
    }
    try {
      batch.records.push(recordOfLine(value, lineNo, file))
      batch.lines.push(lineNo)
    } catch (e) {
      problems.push(e.message)
      return
    }
    if (batch.records.length >= size) {
      batches.push(batch)
      batch = {records: [], lines: []}
    }
  })
  if (batch.records.length) batches.push(batch)
  return {batches, problems: problems.slice(0, MAX_PROBLEMS)}
}

/**
 * Checks then imports. `send(records, dryRun)` calls importRecords (answers {imported}, throws the
 * client's SvcError); `progress(phase, done, total)` after each batch. Answers {imported, problems}.
 */
/**
 * @param {string} text
 * @param {string} file
 * @param {(records: unknown[], dryRun: boolean) => Promise<{imported: number}>} send
 * @param {(phase: string, done: number, total: number) => void} [progress]
 */
export async function runImport(text, file, send, progress = () => {}) {
  const {batches, problems} = parseLines(text, file)
  if (problems.length) return {imported: 0, problems}
  const total = batches.reduce((n, b) => n + b.records.length, 0)
  let done = 0
  for (const b of batches) {
    try {
      await send(b.records, true)
    } catch (e) {
      if (e?.status !== 422) throw e
      problems.push(...lineErrors(e.details, b.lines))
    }
    done += b.records.length
    progress('Checking', done, total)
    if (problems.length >= MAX_PROBLEMS) break
  }
  if (problems.length) return {imported: 0, problems: problems.slice(0, MAX_PROBLEMS)}
  let imported = 0
  for (const b of batches) {
    try {
      imported += (await send(b.records, false)).imported
    } catch (e) {
      const detail = e?.status === 422 ? lineErrors(e.details, b.lines).join('; ') : e.message
      return {imported, problems: [`import stopped at line ${b.lines[0]}: ${detail}. ${imported} record(s) before it were imported, none from line ${b.lines[0]} on`]}
    }
    progress('Importing', imported, total)
  }
  return {imported, problems: []}
}
