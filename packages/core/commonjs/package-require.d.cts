declare const packageRequire: NodeJS.Require;
export = packageRequire;
