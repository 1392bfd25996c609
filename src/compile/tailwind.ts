/** css engine `tailwind`: only the classes the source uses, compiled on the server (Tailwind 4). */
import {packageDir} from './libs.js'

export async function tailwindCompile(source: string, extension: string): Promise<string> {
  const [{compile, optimize}, {Scanner}] = await Promise.all([import('@tailwindcss/node'), import('@tailwindcss/oxide')])
  const compiler = await compile('@import "tailwindcss";', {base: packageDir('tailwindcss'), onDependency: () => {}})
  const candidates = new Scanner({}).scanFiles([{content: source, extension}])
  const css = compiler.build(candidates)
  return optimize(css, {minify: true}).code
}
