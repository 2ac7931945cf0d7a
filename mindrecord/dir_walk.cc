#include "mindrecord/dir_walk.h"

#include <dirent.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "mindrecord/file.h"

namespace mindrecord {

Status WalkFiles(const std::string& root, const std::function<void(const std::string& rel_dir, const std::string& name)>& fn) {
  std::vector<std::string> pending = {""};  // folders to list, relative to root
  std::string name;
  while (!pending.empty()) {
    const std::string rel = std::move(pending.back());
    pending.pop_back();
    const std::string dir = rel.empty() ? root : JoinPath(root, rel);
    DIR* h = ::opendir(dir.c_str());
    if (h == nullptr) return Status::IOError(dir + ": cannot list: " + std::strerror(errno));
    errno = 0;
    while (const dirent* e = ::readdir(h)) {
      if (e->d_name[0] == '.') continue;  // ".", ".." and hidden names
      name = e->d_name;
      unsigned char type = e->d_type;
      if (type == DT_LNK || type == DT_UNKNOWN) {
        // A link counts as what it points to, but a folder behind one is not
        // entered (nor is a dangling link reported).
        struct stat st;
        const std::string path = JoinPath(dir, name);
        if (type == DT_UNKNOWN) {
          if (::lstat(path.c_str(), &st) != 0) continue;
          type = S_ISLNK(st.st_mode) ? DT_LNK : S_ISREG(st.st_mode) ? DT_REG : S_ISDIR(st.st_mode) ? DT_DIR : DT_UNKNOWN;
        }
        if (type == DT_LNK) type = ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) ? DT_REG : DT_UNKNOWN;
      }
      if (type == DT_DIR) {
        pending.push_back(rel.empty() ? name : rel + "/" + name);
      } else if (type == DT_REG) {
        fn(rel, name);
      }
      errno = 0;
    }
    const int err = errno;
    ::closedir(h);
    if (err != 0) return Status::IOError(dir + ": cannot list: " + std::strerror(err));
  }
  return Status::OK();
}

}  // namespace mindrecord
