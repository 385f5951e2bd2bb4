"""rk.core.api: the plugin API, what a plugin author and the backend build against.

Hook specs and the plugin manager, the source, storage, embedder, queue and vector-index
interfaces, the lookups that find a registered plugin, the wire Structs, content keys, request
signing and the errors they raise. Nothing here runs a spider or a worker; that is
``rk.core.runtime``.
"""
