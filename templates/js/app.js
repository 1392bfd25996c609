// Plain JavaScript, run as a classic script (served exactly as written: no imports, no TypeScript). The page has <div id="svc-app"> and window.SvcAppContext.
const root = document.getElementById('svc-app')
const user = window.SvcAppContext && window.SvcAppContext.user
let count = 0
root.innerHTML = '<h1></h1><button type="button"></button>'
root.querySelector('h1').textContent = 'Hello ' + (user ? user.name : 'visitor')
const button = root.querySelector('button')
const render = () => (button.textContent = 'Clicked ' + count + ' times')
button.addEventListener('click', () => {
  count++
  render()
})
render()
