"""The small neutral core every app may import: the tool envelope and its codes, the one domain error, tool
declarations, the state-transition helper and the abstract event model. It imports no app of the project."""
