/**
 * The app engine a source file is written for, when `--engine` is not given: by extension
 * (`.svelte`, `.vue`, `.jsx`/`.tsx`, `.html`/`.htm`), and for `.js`/`.mjs`/`.ts` by content (an
 * import of, or a call into, phaser or kaboom/kaplay makes a game; otherwise plain `js`).
 */
import type {AppEngine} from '../core/apps/validate.js'

export function gameEngineOf(source: string): 'phaser' | 'kaboom' | null {
  if (/from\s+['"]phaser['"]|\bnew\s+Phaser\.Game\b|\bPhaser\.(Scene|AUTO|WEBGL|CANVAS)\b/.test(source)) return 'phaser'
  if (/from\s+['"](kaboom|kaplay)['"]|\b(kaboom|kaplay)\s*\(/.test(source)) return 'kaboom'
  return null
}

export function engineOfFile(path: string, source: string): AppEngine | null {
  const ext = /\.([a-z]+)$/i.exec(path)?.[1]?.toLowerCase()
  switch (ext) {
    case 'svelte': return 'svelte'
    case 'vue': return 'vue'
    case 'jsx': case 'tsx': return 'react'
    case 'html': case 'htm': return 'html'
    case 'js': case 'mjs': case 'ts': return gameEngineOf(source) ?? (/^\s*import\s.*from\s+['"]react['"]/m.test(source) ? 'react' : 'js')
    default: return null
  }
}
