// Copies the node icons (*.svg) and codex files (*.node.json) next to the compiled nodes in dist/.
const { src, dest } = require('gulp');

function copyAssets() {
	return src(['nodes/**/*.svg', 'nodes/**/*.node.json', 'credentials/**/*.svg'], {
		base: '.',
	}).pipe(dest('dist'));
}

exports['build:assets'] = copyAssets;
