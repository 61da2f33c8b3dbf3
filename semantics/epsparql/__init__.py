"""EP-SPARQL (Anicic, Fodor, Rudolph, Stojanovic, WWW 2011): AST, parser, streams and semantic switches."""
