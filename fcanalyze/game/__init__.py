"""The game model: cards, boards and their text, Microsoft deals, rule variants, move notation and the app's scoring."""
