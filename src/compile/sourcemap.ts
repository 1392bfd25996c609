/**
 * The source map served with a Vite-built app: only the app's own file. Rollup's map of the
 * bundle also covers the framework runtime (tens to hundreds of KB of mappings, and server paths);
 * the segments that point into the app's file are kept, the rest left unmapped, and the map is
 * inlined at the end of the module (a few KB), so devtools and stack traces show App.svelte as written.
 */
import {decode, encode, type SourceMapSegment} from '@jridgewell/sourcemap-codec'

interface RollupMap {
  sources: string[]
  mappings: string
  names?: string[]
}

export function withOwnSourceMap(code: string, map: RollupMap | null | undefined, file: string, source: string): string {
  const body = code.replace(/\n?\/\/# sourceMappingURL=\S+\s*$/, '')
  if (!map) return body
  const own = map.sources.findIndex((s) => s === file || s.endsWith(`/${file}`))
  if (own < 0) return body
  const names: string[] = []
  const nameIndex = new Map<number, number>()
  const lines = decode(map.mappings).map((line) => line.flatMap((s): SourceMapSegment[] => {
    if (s.length < 4 || s[1] !== own) return [[s[0]]]
    const seg = s as [number, number, number, number, number?]
    if (seg[4] !== undefined) {
      const name = map.names?.[seg[4]]
      if (name !== undefined) {
        if (!nameIndex.has(seg[4])) nameIndex.set(seg[4], names.push(name) - 1)
        return [[seg[0], 0, seg[2], seg[3], nameIndex.get(seg[4])!]]
      }
    }
    return [[seg[0], 0, seg[2], seg[3]]]
  }).filter((seg, i, all) => seg.length > 1 || (all[i - 1]?.length ?? 1) > 1))
  const out = {version: 3, sources: [file], sourcesContent: [source], names, mappings: encode(lines)}
  return `${body}\n//# sourceMappingURL=data:application/json;charset=utf-8;base64,${Buffer.from(JSON.stringify(out)).toString('base64')}\n`
}
