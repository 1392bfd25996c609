/** css engine `tailwind`: only the classes the source uses, compiled on the server (Tailwind 4). */
import {tailwindCandidates} from '../core/apps/tailwind-candidates.js'
import {packageDir} from './libs.js'

export async function tailwindCompile(source: string): Promise<string> {
  const {compile, optimize} = await import('@tailwindcss/node')
  const compiler = await compile('@import "tailwindcss";', {base: packageDir('tailwindcss'), onDependency: () => {}})
  const css = compiler.build(tailwindCandidates(source))
  return optimize(css, {minify: true}).code
}
