/// @file item_names.h
/// Display names of items by original id, which `symgnn serve`'s page and answers show
/// beside the ids (docs/serve.md): MovieLens titles, read from the data source, or a names
/// file for any other data. Names are UTF-8 on the way out: MovieLens files are latin-1 and
/// are converted.
#pragma once

#include <string>
#include <unordered_map>

namespace symgnn::data {

using ItemNames = std::unordered_map<std::string, std::string>;

/// A names file: "id,name" per line (tab, comma or semicolon; the name is the rest of the
/// line after the first delimiter, so names may hold commas; an optional header "id,name"
/// or "item,name"). Throws DataError "<file>:<line>: ..." on a line without a name or an
/// id given twice.
ItemNames read_item_names(const std::string& path);

/// The titles a data source carries (data.source): a MovieLens-100K directory's u.item
/// ("id|title|..."), a MovieLens-1M directory's movies.dat ("id::title::genres"); empty for
/// every other source. Throws DataError naming the file when one is there but malformed.
ItemNames source_item_names(const std::string& source);

/// The names of a model's items: those of `names_file` where given, else the names its
/// directory `model_dir` kept (item_names.csv, checksum verified), else those its data source
/// carries (`source`); empty where none.
ItemNames model_item_names(const std::string& model_dir, const std::string& names_file,
                           const std::string& source);
/// `bytes` read as latin-1 (ISO 8859-1), as UTF-8.
std::string latin1_to_utf8(const std::string& bytes);

}  // namespace symgnn::data
