// kaboom (served as kaplay, its maintained successor). kaboom() starts the game.
kaboom({background: [20, 24, 40]})

let score = 0
const label = add([text('Score: 0', {size: 24}), pos(16, 16)])

const player = add([rect(40, 40), pos(center()), anchor('center'), area(), color(80, 200, 120)])

onKeyDown('left', () => player.move(-240, 0))
onKeyDown('right', () => player.move(240, 0))
onKeyDown('up', () => player.move(0, -240))
onKeyDown('down', () => player.move(0, 240))
onClick(() => {
  score++
  label.text = 'Score: ' + score
  player.pos = mousePos()
})
