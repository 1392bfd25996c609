// Phaser. The library is served once by the server; import it as 'phaser'.
import Phaser from 'phaser'

let score = 0

class Main extends Phaser.Scene {
  create() {
    const label = this.add.text(16, 16, 'Score: 0', {fontSize: '24px', color: '#ffffff'})
    const box = this.add.rectangle(400, 300, 60, 60, 0x44cc88).setInteractive()
    box.on('pointerdown', () => {
      score++
      label.setText('Score: ' + score)
      box.setPosition(Phaser.Math.Between(60, 740), Phaser.Math.Between(60, 540))
    })
  }
}

new Phaser.Game({type: Phaser.AUTO, width: 800, height: 600, backgroundColor: '#141828', parent: 'svc-app', scene: Main})
