// Injected into the standalone build (CommonJS, where import.meta is empty): what `import.meta.url` means
// there, the file being run, so bundled packages that find files beside themselves at load time still can.
export const import_meta_url = require('node:url').pathToFileURL(__filename).href;
