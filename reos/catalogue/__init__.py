"""The catalogue: what reos knows how to do, as data read from the template files.

`templates` loads the TOML files (built-in and the user's) into a TemplateSet, checked by
type (`operations` for operations, refusals and vocabulary; `schema` for recipes and
aliases); `lexicon` holds the catalogue's words and meets the request's words with them;
`refusing` matches the catalogue's refusals on a request's words.

Not responsible for reading a request into an intent (reos.understanding), for choosing
targets or building steps (reos.planning), or for writing its cache
(reos.store.template_cache). Imports nothing: each module is imported by name.
"""
