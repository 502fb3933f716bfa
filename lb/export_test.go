package lb

// FastInitPiece exports fastInitPiece to the external tests.
var FastInitPiece = fastInitPiece
