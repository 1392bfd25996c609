// React 19 with JSX. The default export is mounted into <div id="svc-app">.
import {useState} from 'react'

export default function App() {
  const user = window.SvcAppContext?.user
  const [count, setCount] = useState(0)
  return (
    <main className="p-6 font-sans">
      <h1 className="text-2xl font-bold mb-4">Hello {user ? user.name : 'visitor'}</h1>
      <button className="px-4 py-2 rounded bg-purple-600 text-white" onClick={() => setCount(count + 1)}>
        Clicked {count} times
      </button>
      <p className="mt-2 text-gray-600">Doubled: {count * 2}</p>
    </main>
  )
}
